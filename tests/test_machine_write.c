/*
 * test_machine_write.c - a machine read from a file or --set writes out
 * (up_machine_write: experiment.ini, the JSON) as text that reads back,
 * found by the "machine" fuzz target (src/model/machine.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"
#include "model/machine.h"

/* bandwidth_gbs = 1e308 gave ns_per_byte = 1e-308, below DBL_MIN: strtod
 * says ERANGE for it, and the parser refused the number it had written, so
 * `simulate --experiment` could not run the experiment.ini it wrote.  The
 * ranges now stop bandwidth_gbs at 1e6; its inverse and a denormal
 * ns_per_byte (inside [0, 1e6]) must still read back. */
TEST(machine_tiny_values_read_back)
{
    up_machine m, again;
    up_err err = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    up_machine_init(&m);
    CHECK_EQ(up_machine_set(&m, "bandwidth_gbs=1e6", &err), UP_OK);
    CHECK(m.ns_per_byte == 1.0 / 1e6);
    CHECK_EQ(up_machine_set(&m, "bandwidth_gbs=1e308", &err), UP_EUSAGE);
    f = open_memstream(&text, &len);
    CHECK(f && up_machine_write(f, &m) == 0);
    if (f)
        fclose(f);
    up_machine_init(&again);
    CHECK_EQ(up_machine_parse(text, "written", &again, &err), UP_OK);
    CHECK(again.ns_per_byte == 1.0 / 1e6);
    free(text);
    up_machine_init(&again);
    CHECK_EQ(up_machine_parse("[network]\nns_per_byte = 4.9e-324\n", "test", &again, &err), UP_OK);
    CHECK(again.ns_per_byte > 0 && again.ns_per_byte < 1e-323);
    /* still refused: a number too large for a double */
    CHECK_EQ(up_machine_parse("[network]\nlatency_ns = 1e400\n", "test", &again, &err), UP_EFORMAT);
}
