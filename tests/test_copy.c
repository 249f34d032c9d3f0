/*
 * test_copy.c - the copy-time table C(size) of a calibration
 * (src/model/calibration.c, up_copy_ns) at the ends of the double range,
 * found by the "calibration" fuzz target.
 */
#include <math.h>

#include "test.h"
#include "unperturb/model.h"

/* Between two points the time per byte is interpolated linearly; the slope
 * times the distance from the first point overflowed for large values
 * (here -1e306 * 999 ns) and C came out -inf.  By hand: 1000 bytes lie
 * 999/1000 of the way from 1 byte (1e306 ns/byte) to 1001 bytes (0), so
 * 1e303 ns/byte, 1e306 ns. */
TEST(copy_time_interpolation_does_not_overflow)
{
    up_comp_params p;
    up_err err = {0};
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[copy]\n1 = 1e306\n1001 = 0\n", "test", &p, &err), UP_OK);
    CHECK_EQ(p.ncopy, 2);
    CHECK_NEAR(up_copy_ns(&p, 1000) / 1e306, 1.0, 1e-9);
    CHECK_NEAR(up_copy_ns(&p, 1), 1e306, 1e294);
    CHECK_EQ(up_copy_ns(&p, 1001), 0);
}
