#!/usr/bin/env bash
# Regenerates the golden cases of the mixture-of-experts synth models (see README.md). Run from the module root:
#   internal/golden/testdata/synth/make.sh [PRESET...]
# With presets named, only their cases are made again.
# Needs ../shared/bin/llama-native (llref) and gcc: on a CPU without AVX-VNNI (AMD Zen 4), which the native
# build's Q8_0, Q4_0 and MXFP4 kernels use, vnni.c emulates those instructions (see README.md).
set -euo pipefail
here=internal/golden/testdata/synth
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
gcc -O2 -shared -fPIC "$here/vnni.c" -o "$models/vnni.so"
native="../shared/bin/llama-native/run llref"
ids="$(seq -s ' ' 7 9 285)"   # 32 ids: 7 16 25 … 286 mod 320
# case: preset type seed mode [denormals]
cases=(
  "tiny-qwen3moe q4_k 11 long"
  "tiny-qwen3moe q6_k 11 seq"
  "tiny-qwen3moe q8_0 11 long"
  "tiny-gpt-oss mxfp4 12 long"
  "tiny-gpt-oss mxfp4 12 seq"
  "tiny-deepseek2 q4_k 13 long"
  "tiny-deepseek2 q6_k 13 seq"
  "tiny-deepseek2 q8_0 13 long"
  "tiny-mistral3 q4_k 21 long"
  "tiny-mistral3 q8_0 21 seq"
  "tiny-granite q6_k 22 long"
  "tiny-granite q8_0 22 seq"
  "tiny-olmo2 q4_k 23 long"
  "tiny-olmo2 q8_0 23 seq"
  "tiny-smollm3 q6_k 24 long"
  "tiny-smollm3 q8_0 24 seq"
  "tiny-gemma2 q4_k 25 long"
  "tiny-gemma2 q8_0 25 seq"
  "tiny-lfm2 q4_k 26 long"
  "tiny-lfm2 q8_0 26 seq"
  "tiny-llama bf16 27 long denormals"
  "tiny-llama bf16 27 seq denormals"
  "tiny-qwen3 iq4_xs 28 long"
  "tiny-qwen3 iq4_xs 28 seq"
)
go build -o "$models/forma" ./cmd/forma
for c in "${cases[@]}"; do
  read -r preset typ seed mode extra <<<"$c"
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$preset"; then continue; fi
  stem=$preset-$typ
  synthflags=()
  if [ "$extra" = denormals ]; then
    stem=$stem-denormals
    synthflags=(--denormals)
  fi
  model=$models/$stem.gguf
  [ -f "$model" ] || "$models/forma" synth --preset "$preset" --type "$typ" --seed "$seed" "${synthflags[@]}" -o "$model" >/dev/null
  flags=(--all --kv f32 -t 2 -n 48 --gen-logits)
  [ "$mode" = seq ] && flags+=(--seq)
  LD_PRELOAD="$models/vnni.so" $native -m "$model" --ids "$ids" "${flags[@]}" -o "$here/golden/$stem.$mode" 2>/dev/null
  meta=$here/golden/$stem.$mode.meta.txt
  sed -i "s|^model=.*|model=$stem.gguf|" "$meta"
  {
    echo "synth_preset=$preset"
    echo "synth_type=$typ"
    echo "synth_seed=$seed"
    [ "$extra" = denormals ] && echo "synth_denormals=1"
    echo "model_sha256=$(sha256sum "$model" | cut -d' ' -f1)"
    echo "command=llref -m $stem.gguf --ids \"$ids\" ${flags[*]} -o $stem.$mode"
  } >> "$meta"
done
