# SPDX-License-Identifier: BSD-3-Clause
"""mcapi/_cdef.py, the declarations ABI mode trusts, checked against the headers.

The compiled module (API mode) takes its declarations from the headers
themselves (mcapi/_build.py header_cdef: the C preprocessor's output). ABI
mode cannot count on a compiler at run time and keeps the text of _cdef.py:
this test reads the headers the same way and requires every function _cdef.py
declares to have the headers' signature, and every type it declares the
headers' size and layout.
"""
import os
import shutil

import cffi
import pytest

from mcapi import _build, _cdef

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_INCLUDE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "include")


def _include_dirs():
    lib = os.environ.get("MCX_LIBMCA")
    if not lib or not shutil.which(_build._compiler()[0]):
        pytest.skip("needs MCX_LIBMCA (the build tree's library, beside its include/) and a C compiler")
    return [SOURCE_INCLUDE, os.path.join(os.path.dirname(lib), "include")]


def _ffi(text):
    ffi = cffi.FFI()
    ffi.cdef(text)
    return ffi


def test_cdef_functions_and_types_are_the_headers():
    hand = _ffi(_cdef.CDEF + _cdef.MRAPI_CDEF)
    names = _build.function_names(_cdef.CDEF + _cdef.MRAPI_CDEF)
    head = _ffi(_build.header_cdef(_include_dirs(), names))
    hd, dd = hand._parser._declarations, head._parser._declarations
    assert len(names) > 80
    for name in names:
        mine, theirs = hd["function " + name][0], dd["function " + name][0]
        assert mine.get_c_name() == theirs.get_c_name(), name
    typedefs = [k.split(" ", 1)[1] for k in hd if k.startswith("typedef ")]
    assert "mcapi_param_t" in typedefs and "mrapi_mutex_attributes_t" in typedefs
    for t in typedefs:
        assert hand.sizeof(t) == head.sizeof(t), t
        ctype = hand.typeof(t)
        if ctype.kind == "struct":
            mine = [(n, f.offset, hand.sizeof(f.type)) for n, f in ctype.fields]
            theirs = [(n, f.offset, head.sizeof(f.type)) for n, f in head.typeof(t).fields]
            assert mine == theirs, t


def test_a_changed_declaration_is_caught():
    """The check can fail: a parameter's type changed in the hand-written text."""
    text = (_cdef.CDEF + _cdef.MRAPI_CDEF).replace(
        "void mcapi_msg_send(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,\n"
        "                    const void *buffer, size_t buffer_size,",
        "void mcapi_msg_send(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,\n"
        "                    const void *buffer, uint32_t buffer_size,")
    assert text != _cdef.CDEF + _cdef.MRAPI_CDEF
    hand = _ffi(text)
    head = _ffi(_build.header_cdef(_include_dirs(), _build.function_names(text)))
    assert hand._parser._declarations["function mcapi_msg_send"][0].get_c_name() != \
        head._parser._declarations["function mcapi_msg_send"][0].get_c_name()
