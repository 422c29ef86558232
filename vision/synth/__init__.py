"""The synthetic table renderer: board art, camera, pieces, scenes, datasets and game videos."""
