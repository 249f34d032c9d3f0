/*
 * test_copy.c - the copy-time table C(size) of a calibration
 * (src/model/calibration.c, up_copy_ns) at the ends of the double range,
 * found by the "calibration" fuzz target.
 */
#include <math.h>

#include "test.h"
#include "model/compensate.h"

/* Between two points the time per byte is interpolated linearly; the slope
 * times the distance from the first point overflowed for large values and
 * C came out -inf (the fuzzer's 1e306 ns/byte, which the calibration file's
 * ranges now refuse).  At the ends of the ranges (per-byte times up to 1e6
 * ns/byte, sizes up to 2^53 bytes, docs/calibration.md), by hand: 2^52
 * bytes lie (2^52 - 1) / (2^53 - 1) of the way from 1 byte (1e6 ns/byte)
 * to 2^53 bytes (0 ns/byte). */
TEST(copy_time_interpolation_does_not_overflow)
{
    up_comp_params p;
    up_err err = {0};
    double two52 = 4503599627370496.0, two53 = 9007199254740992.0;
    double per = 1e6 * (1.0 - (two52 - 1.0) / (two53 - 1.0));
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[copy]\n1 = 1e6\n9007199254740992 = 0\n", "test", &p, &err), UP_OK);
    CHECK_EQ(p.ncopy, 2);
    CHECK_NEAR(up_copy_ns(&p, (uint64_t)two52) / (two52 * per), 1.0, 1e-9);
    CHECK_NEAR(up_copy_ns(&p, 1), 1e6, 1e-6);
    CHECK_EQ(up_copy_ns(&p, (uint64_t)two53), 0);
    up_comp_params_init(&p); /* the fuzzer's value: out of range */
    CHECK_EQ(up_calibration_parse("[copy]\n1 = 1e306\n1001 = 0\n", "test", &p, &err), UP_EFORMAT);
}
