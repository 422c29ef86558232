#!/usr/bin/env bash
# One GPU lease of the counting network's training, as sessions 55, 57 and 61 ran it: render new
# tables on all cores for RENDER_S seconds (three frames a table, half on the real print), then
# train on them; PHASE=2 goes on from phase 1's last weights at a lower peak, on the same samples,
# while the machine is still warm (the samples stay in $W). Run from the repository root on the
# device machine, with the board photo copied into the carried scratch folder first, e.g.
#   mkdir -p .gpu && cp ../shared/reference/spqrisiko/board-photo-topdown.jpeg .gpu/
#   (run, carry [".gpu"], timeout_s 570):  bash tools/gpu-lease.sh     # 498 s on an H100
#   then at once, within the warm window:  PHASE=2 EPOCHS=8 LR=3e-4 bash tools/gpu-lease.sh  # 226 s
# The defaults continue the lean network from session 61's weights, taught by the shipped wide
# network, on tables no lease has rendered yet (models/README.md, "Session 57" and "Session 61").
# Session 99 spent its lease on accuracy instead (tools/gpu-lease-pair.sh, "Session 99"): the
# lean shape is for speed, which the 2-core machine already has.
# Session 64 ran them once more (render seed 59) and the lean network gained nothing: its losses
# were flat and it read the validation tables no better ("Session 64"). Change the recipe (ARCH,
# TEACHER, DISTILL, LR) before spending another lease on it: ARCH=lean24 widens the last decoder
# stage and starts exactly where the lean weights are; DISTILL=0.5 holds the student less to
# the teacher.
# Session 61's two calls, as above, held the machine 764 s of a 15-minute lease, its start
# included. The weights come back under $OUT (a checkpoint after every epoch, so a run cut short
# still returns its last epoch). Every setting is a variable.
set -u
export PYTHONUNBUFFERED=1
PHASE=${PHASE:-1}
RENDER_S=${RENDER_S:-130}
RENDER_SEED=${RENDER_SEED:-60}
EPOCHS=${EPOCHS:-13}
STEPS=${STEPS:-1000}
LR=${LR:-6e-4}
ARCH=${ARCH:-lean}
INIT=${INIT:-models/training/pieces-density-lean-s61.pt}
TEACHER=${TEACHER:-models/training/pieces-density.pt}
DISTILL=${DISTILL:-1}                  # the weight of the teacher's maps against the truth's
DEVICE=${DEVICE:-cuda}
. tools/gpu-lease-env.sh
teach=()
[ -n "$TEACHER" ] && teach=(--teacher "$TEACHER" --distill "$DISTILL")
if [ "$PHASE" = 1 ]; then
  render=(--render-for "$RENDER_S"); models="$OUT/phase1"; seed=57
else
  # the samples of phase 1 are still in $W: --render-for 1 begins (almost) no new table
  render=(--render-for 1); models="$OUT/phase2"; seed=58; INIT=${INIT2:-/tmp/lease-phase1.pt}
fi
python3 -m augur train-counter --workers "$WORKERS" --work "$W" --models "$models" \
  --images $IMAGES --render-seed "$RENDER_SEED" --frames 3 "${render[@]}" \
  --board-photo "$BOARD_PHOTO" --rotate ccw --arch "$ARCH" --init "$INIT" "${teach[@]}" \
  --epochs "$EPOCHS" --steps "$STEPS" --batch 32 --lr "$LR" --spill-share 0.3 --seed "$seed" \
  --device "$DEVICE" 2>&1 | grep -v "^rendered " | tee "$OUT/log$PHASE.txt"
[ "$PHASE" = 1 ] && cp "$models/training/pieces-density.pt" /tmp/lease-phase1.pt
date
