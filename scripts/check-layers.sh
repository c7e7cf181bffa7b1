#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Keeps the layers of the library in order (api -> runtime -> transport/sync ->
# ports): nothing under src/transport/ includes a runtime/ or api/ header or
# names the runtime's types and globals; the runtime passes what a transport
# needs in (its own small structs, see transport/pmq.h). The MCAPI runtime
# (src/runtime/) and the MRAPI runtime (src/mrapi/) include nothing of each
# other, and nothing below them includes either. The library and its ports
# include its headers by rooted names (common/..., ports/...), never "../".
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
if grep -rnE '#[[:space:]]*include[[:space:]]*"(runtime|api)/' src/transport; then
  echo "check-layers: src/transport/ includes headers of the layers above it"; bad=1
fi
if grep -rnwE 'mcx__(domain|endpoint|chan|node)_t|mcx__self|mcx__debug_level|MCX_DEBUG' src/transport \
   | grep -vE '^\S+:[0-9]+:\s*(//|/?\*)'; then
  echo "check-layers: src/transport/ names the runtime's types or globals"; bad=1
fi
if grep -rnE '#[[:space:]]*include[[:space:]]*"(runtime|api)/' src/mrapi; then
  echo "check-layers: src/mrapi/ includes headers of the MCAPI runtime or the api"; bad=1
fi
if grep -rnE '#[[:space:]]*include[[:space:]]*"mrapi/' src/runtime src/transport src/sync src/hpc ports; then
  echo "check-layers: the MCAPI runtime or a layer below it includes a header of src/mrapi/"; bad=1
fi
if grep -rnE '#[[:space:]]*include[[:space:]]*"\.\./' src ports; then
  echo "check-layers: a relative include above: name the header from src/ or the project root (common/mcx_err.h, ports/mcx_port.h)"; bad=1
fi
exit $bad
