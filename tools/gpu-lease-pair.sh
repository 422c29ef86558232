#!/usr/bin/env bash
# One GPU lease that renders new tables once and trains two networks on them side by side (the
# GPU holds both; two runs together train about as many steps each as one alone would in two
# thirds of the time, models/README.md "Session 54"). Session 99 ran it as:
#   mkdir -p .gpu && cp ../shared/reference/spqrisiko/board-photo-topdown.jpeg .gpu/
#   (run, carry [".gpu"], timeout_s 590):  bash tools/gpu-lease-pair.sh
# RUN_A and RUN_B are "ARCH INIT LR EPOCHS SEED" each. Session 99 ran it with render seed 61,
# RUN_A="broad models/training/pieces-density.pt 6e-4 7 61" (the then shipped wide network,
# widened) and RUN_B="wide models/training/pieces-density.pt 5e-4 7 62", then on the warm machine
# run a's weights 8 epochs more at 3e-4: the candidate training/pieces-density-broad-s99-d.pt.
# Session 100 ran its defaults then (render seed 62, fine-tunes of d at 5e-4 and 1e-3, seeds 65
# and 66) and, on the warm machine, a third at 7e-4 (seed 67) on the same samples; the mean of d
# and the three is the shipped network (models/README.md, "Session 100"). The defaults now go on
# from that mean: two fine-tunes of it at two peaks on tables no lease has rendered, whose mean
# with it is a network (they share its channels). Each run has its own hard-linked copy of the
# samples, so the few tables that its own (one-second) rendering window may begin never race the
# other's. The weights come back under $OUT/a and $OUT/b, copied every 20 s from each run's
# checkpoint saved after every epoch, so a run cut short returns its last one.
# RICH_SHARE (new in session 104, not yet run on a lease) is the share of tables showing the most
# crowded states of their game (`augur train-counter --rich-share`): big piles and vexilla hold a
# third of the hard tables' wrong regions (models/README.md, "Session 101"). Set RICH_SHARE=0 for
# the tables of earlier leases.
# TOPPLED (new in session 113, not yet run on a lease): on a seeded half of the tables this share of
# the legionaries and vexilla lie knocked over (`augur train-counter --toppled`). The shipped
# network never saw one, and reads a lying legionary as two about half the time on easy tables
# (models/README.md, "Session 113"). Set TOPPLED=0 for the tables of earlier leases. Session 115's
# CPU fine-tune on such tables (1,200 steps) read more knocked pieces right but left more wrong counts
# unflagged once refitted: judge a lease's run on both (models/README.md, "Session 115"). Its mean
# with the shipped network read the procedural tables better and the print no better, which only the
# print's 120 tables a tier showed (--images 120 --board-photo ...): judge there first ("Session 116").
# The unflagged count there moves by 84 when only the confidence is refitted on another seed, so
# compare flags over several fit-confidence --render-seed draws, not one ("Session 117").
set -u
export PYTHONUNBUFFERED=1
RENDER_S=${RENDER_S:-180}
RENDER_SEED=${RENDER_SEED:-63}
STEPS=${STEPS:-1000}
RICH_SHARE=${RICH_SHARE:-0.3}
TOPPLED=${TOPPLED:-0.1}
RUN_A=${RUN_A:-"broad models/training/pieces-density.pt 5e-4 7 68"}
RUN_B=${RUN_B:-"broad models/training/pieces-density.pt 1e-3 7 69"}
. tools/gpu-lease-env.sh
common=(--images $IMAGES --render-seed "$RENDER_SEED" --frames 3 --board-photo "$BOARD_PHOTO" --rotate ccw
        --rich-share "$RICH_SHARE" --toppled "$TOPPLED")
python3 -m augur train-counter --workers "$WORKERS" --work "$W" "${common[@]}" --render-for "$RENDER_S" \
  --epochs 0 2>&1 | grep -v "^rendered " | tee "$OUT/render.txt"
date
train() {   # name, then ARCH INIT LR EPOCHS SEED
  local name=$1 arch=$2 init=$3 lr=$4 epochs=$5 seed=$6
  cp -al "$W" "$W-$name"
  python3 -m augur train-counter --workers 8 --work "$W-$name" --models "/tmp/$name-models" "${common[@]}" \
    --render-for 1 --arch "$arch" --init "$init" --epochs "$epochs" --steps "$STEPS" --batch 32 --lr "$lr" \
    --spill-share 0.3 --seed "$seed" --device cuda 2>&1 | grep -v "^rendered " > "$OUT/log-$name.txt"
}
train a $RUN_A &
pa=$!
train b $RUN_B &
pb=$!
fetch() {   # the checkpoints (and, once written, the cards) come back two folders down: $OUT/a/
  for n in a b; do mkdir -p "$OUT/$n"
    cp -f "/tmp/$n-models/training/pieces-density.pt" "/tmp/$n-models/pieces-density.json" "$OUT/$n/" 2>/dev/null
  done
}
( while sleep 20; do fetch; done ) &
copier=$!
wait $pa $pb
kill $copier
fetch
tail -n 3 "$OUT"/log-*.txt
date
