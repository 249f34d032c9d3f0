"""tests/readers/pyread.py ANCHOR - reads an OTF2 archive in full with OTF2's
own Python bindings (Debian's python3-otf2; run it with /usr/bin/python3):
every global definition, then every event of every location.  Prints
"definitions N events M" (N counts the ClockProperties too, as the anchor
file's number of global definitions does); a reference the reader cannot
resolve, or any other error, ends it with a traceback and exit status 1."""
import sys

import otf2
from otf2.registry import _Registry

with otf2.reader.open(sys.argv[1]) as trace:
    defs = trace.definitions
    ndefs = 1 if defs.clock_properties is not None else 0
    for registry in vars(defs).values():
        if isinstance(registry, _Registry):
            ndefs += sum(1 for _ in registry)
    nevents = sum(1 for _ in trace.events)
print("definitions", ndefs, "events", nevents)
