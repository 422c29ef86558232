# The settings every GPU lease script shares (sourced from the repository root by
# tools/gpu-lease.sh and tools/gpu-lease-pair.sh), and a line of what the device machine has.
BOARD_PHOTO=${BOARD_PHOTO:-.gpu/board-photo-topdown.jpeg}
WORKERS=${WORKERS:-16}
IMAGES=${IMAGES:-"2700 3300 3900"}     # an upper bound in the default tiers' ratio: RENDER_S decides
W=${W:-/tmp/lease-work}
OUT=${OUT:-/tmp/lease-out}
mkdir -p "$OUT"
date
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader 2>/dev/null
python3 -c "import torch, cv2, onnxruntime; print('torch', torch.__version__, torch.cuda.is_available(), 'OpenCV', cv2.__version__)"
