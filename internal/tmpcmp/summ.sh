#!/bin/bash
# usage: summ.sh model case vocab
m=$1; c=$2; V=$3
ids=$(cat /work/shared/testdata/golden/$m.$c.ids.txt)
/work/shared/bin/llama-ref logits /work/shared/testdata/models/$m.gguf --ids "$ids" --all -o /tmp/lr >/dev/null 2>&1
/tmp/forma logits -m /work/shared/testdata/models/$m.gguf --ids "$ids" --all --kv f32 -o /tmp/fo >/dev/null
echo "$m.$c ref-vs-golden: $(go run ./internal/tmpcmp /work/shared/testdata/golden/$m.$c.logits.f32 /tmp/lr.logits.f32 $V | awk '{if($4>m)m=$4} END{print "maxKL",m}')  forma-vs-golden: $(go run ./internal/tmpcmp /work/shared/testdata/golden/$m.$c.logits.f32 /tmp/fo.logits.f32 $V | awk '{if($4>m)m=$4} END{print "maxKL",m}') forma-vs-ref: $(go run ./internal/tmpcmp /tmp/lr.logits.f32 /tmp/fo.logits.f32 $V | awk '{if($4>m)m=$4} END{print "maxKL",m}')"
