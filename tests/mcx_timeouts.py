# SPDX-License-Identifier: BSD-3-Clause
"""The test scripts' ceilings, as tests/mcx_test.h has them for the C tests.

A ceiling only stops a hang: a script waits for its event and uses a ceiling
as the limit of a call expected to finish. MCX_TEST_TIMEOUT_SCALE (> 0,
fractional allowed; 1 by default) multiplies every ceiling.
"""
import os


def timeout_scale():
    """MCX_TEST_TIMEOUT_SCALE (> 0, fractional allowed), default 1: the factor on every ceiling."""
    try:
        v = float(os.environ.get("MCX_TEST_TIMEOUT_SCALE", "1"))
    except ValueError:
        return 1.0
    return v if v > 0 else 1.0


def ceiling(seconds):
    """@p seconds scaled by timeout_scale()."""
    return seconds * timeout_scale()
