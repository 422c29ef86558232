"""``augur train``: reproduce the shipped piece detector (needs the optional ``[train]`` extra).

Recipe (recorded in the model card): render ``images`` tables across the three tiers from
``seed``, cut them into 320x320 tiles at the camera's native resolution (a legionary spans
about 8 x 12 pixels at 1280x720, too small to downscale), keep the tiles that show part of the
board, and train YOLO11n from scratch (no pretrained weights can be fetched here) with
ultralytics on the CPU; then export ONNX for onnxruntime. Nothing is downloaded: ultralytics'
auto-install and plotting (which fetches fonts) are switched off.
"""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASS_INDEX, CLASS_NAMES
from vision.synth.dataset import iter_renders

TILE = 320
TIER_MIX = (("easy", 0.4), ("medium", 0.3), ("hard", 0.3))
MIN_VISIBLE = 0.6          # a box is labelled in a tile when this much of it lies inside


def tile_origins(width: int, height: int, tile: int = TILE) -> list[tuple[int, int]]:
    """Tile corners covering the frame, overlapping where the size does not divide evenly."""
    def starts(n: int) -> list[int]:
        k = max(1, int(np.ceil(n / tile)))
        return [int(round(i * (n - tile) / max(1, k - 1))) for i in range(k)] if n > tile else [0]
    return [(x, y) for y in starts(height) for x in starts(width)]


def make_tile_dataset(out: Path, images: int, seed: int, val_fraction: float = 0.1) -> dict:
    """Render, tile and label; return counts. Tiles without any board in them are skipped."""
    out = Path(out)
    for sub in ("images/train", "images/val", "labels/train", "labels/val"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    counts = {"images": 0, "tiles": 0, "boxes": 0}
    k = 0
    for tier, share in TIER_MIX:
        n = max(1, int(round(images * share)))
        for i, img, truth in iter_renders(tier, n, seed):
            split = "val" if (k % int(round(1 / val_fraction))) == 0 else "train"
            k += 1
            quad = np.float32(truth.board_corners)
            for (x, y) in tile_origins(img.shape[1], img.shape[0]):
                rect = np.float32([[x, y], [x + TILE, y], [x + TILE, y + TILE], [x, y + TILE]])
                inter, _ = cv2.intersectConvexConvex(quad, rect)
                if inter < 0.05 * TILE * TILE:
                    continue
                lines = []
                for p in truth.pieces:
                    x0, y0, x1, y1 = p.box
                    if p.occluded > 0.5 or x1 - x0 < 2 or y1 - y0 < 2:
                        continue
                    cx0, cy0, cx1, cy1 = max(x0, x), max(y0, y), min(x1, x + TILE), min(y1, y + TILE)
                    if cx1 <= cx0 or cy1 <= cy0:
                        continue
                    if (cx1 - cx0) * (cy1 - cy0) < MIN_VISIBLE * (x1 - x0) * (y1 - y0):
                        continue
                    c = CLASS_INDEX[(p.kind, p.colour)]
                    lines.append(f"{c} {((cx0 + cx1) / 2 - x) / TILE:.6f} {((cy0 + cy1) / 2 - y) / TILE:.6f} "
                                 f"{(cx1 - cx0) / TILE:.6f} {(cy1 - cy0) / TILE:.6f}")
                name = f"{tier}_{i:05d}_{x}_{y}"
                cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), img[y:y + TILE, x:x + TILE],
                            [cv2.IMWRITE_JPEG_QUALITY, 95])
                (out / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
                counts["tiles"] += 1
                counts["boxes"] += len(lines)
            counts["images"] += 1
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES))
    (out / "data.yaml").write_text(f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}\n")
    return counts


def train(work: Path, models_dir: Path, images: int = 300, epochs: int = 20, seed: int = 0,
          batch: int = 32, init: Path | None = None) -> dict:
    """Make the tiles, train (from scratch, or on from the checkpoint ``init``), export ONNX into
    ``models_dir`` and write the model card."""
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    os.environ.setdefault("YOLO_OFFLINE", "true")
    try:
        from ultralytics import YOLO, settings
    except ImportError:
        raise SystemExit("augur train needs the training extra: pip install -e '.[train]' "
                         "(a separate environment with torch and ultralytics)") from None
    settings.update({"sync": False})
    work, models_dir = Path(work), Path(models_dir)
    t0 = time.time()
    counts = make_tile_dataset(work / "tiles", images, seed)
    t1 = time.time()
    model = YOLO(str(init)) if init else YOLO("yolo11n.yaml")
    model.train(data=str(work / "tiles" / "data.yaml"), imgsz=TILE, epochs=epochs, batch=batch, device="cpu",
                workers=2, seed=seed, deterministic=True, pretrained=bool(init), plots=False, amp=False,
                project=str(work / "runs"), name="pieces", exist_ok=True, verbose=False, patience=0,
                # pieces are 8-12 px: the default +-50 % scale jitter and mosaic shrink them below what
                # the network can see, so keep their size and vary the rest
                fliplr=0.5, flipud=0.5, degrees=0.0, mosaic=0.0, scale=0.1, translate=0.05,
                hsv_h=0.01, hsv_s=0.3, hsv_v=0.3)
    t2 = time.time()
    best = work / "runs" / "pieces" / "weights" / "best.pt"
    trained = YOLO(str(best))
    metrics = trained.val(data=str(work / "tiles" / "data.yaml"), imgsz=TILE, device="cpu", plots=False,
                          verbose=False)
    onnx_path = Path(trained.export(format="onnx", imgsz=TILE, dynamic=True, simplify=False, opset=17))
    models_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(onnx_path, models_dir / "pieces-yolo11n-320.onnx")
    card = {
        "model": "pieces-yolo11n-320.onnx",
        "architecture": "YOLO11n (ultralytics), " + (f"trained on from {Path(init).name}" if init else "trained from scratch"),
        "input": f"{TILE}x{TILE} RGB tiles at native camera resolution", "classes": list(CLASS_NAMES),
        "data": {"renderer_images": counts["images"], "tiles": counts["tiles"], "boxes": counts["boxes"],
                 "tiers": dict(TIER_MIX), "seed": seed, "command": f"augur train --images {images} --epochs {epochs} --seed {seed}"},
        "training": {"epochs": epochs, "batch": batch, "device": "cpu", "minutes_data": round((t1 - t0) / 60, 1),
                     "minutes_train": round((t2 - t1) / 60, 1)},
        "metrics_val_tiles": {"mAP50": float(metrics.box.map50), "mAP50_95": float(metrics.box.map),
                              "precision": float(metrics.box.mp), "recall": float(metrics.box.mr)},
    }
    (models_dir / "pieces-yolo11n-320.json").write_text(json.dumps(card, indent=1) + "\n")
    return card
