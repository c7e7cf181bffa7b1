# SPDX-License-Identifier: BSD-3-Clause
"""docs/python.md's reference section is the package's docstrings as they are
now (mcapi/_apidoc.py writes it), and names every public name."""
import os

import mcapi
from mcapi import _apidoc, mrapi

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                   "docs", "python.md")


def test_reference_section_is_current():
    with open(DOC) as f:
        text = f.read()
    assert _apidoc.section(text) == _apidoc.reference(), \
        "docs/python.md is out of date: python3 -m mcapi._apidoc docs/python.md"


def test_every_public_name_is_in_the_reference():
    ref = _apidoc.reference()
    for name in mcapi.__all__:
        assert f"`mcapi.{name}" in ref or f"`{name}`" in ref, name
    for name in mrapi.__all__:
        assert f"`mrapi.{name}" in ref or f"`{name}`" in ref, name
