"""One augur at a time on a recording folder (``webui.recording_lock``), with the system's own lock
(``flock``) and with Windows' (``msvcrt``), played here by a stand-in on POSIX byte-range locks
that also insists, as Windows would, that the locked byte lies past the process id."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from webui.recording_lock import RECORDING_LOCK

pytest.importorskip("fcntl", reason="the holders run on POSIX locks (flock, or lockf standing in for msvcrt)")

ROOT = Path(__file__).resolve().parents[1]

#: Windows' msvcrt as the lock uses it: ``locking(fd, LK_NBLCK, n)`` locks ``n`` bytes from the
#: file's position or raises OSError. Here a POSIX record lock (per process, as Windows' is per
#: handle); a lock over the file's content is refused, since on Windows no one else could read it.
FAKE_MSVCRT = '''
import fcntl, os, types
def locking(fd, mode, n):
    assert mode == 2, mode
    at = os.lseek(fd, 0, os.SEEK_CUR)
    assert at >= os.fstat(fd).st_size, "the lock would stop others reading the process id"
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, n, at, os.SEEK_SET)
    except OSError:
        raise PermissionError(13, "Permission denied") from None
sys.modules["msvcrt"] = types.SimpleNamespace(LK_NBLCK=2, locking=locking)
sys.modules["fcntl"] = None         # import fcntl fails, as on Windows
'''

#: A process that takes the lock on the folder argv[1], says so with its id and holds it until its
#: standard input closes, or says why it was refused and exits 3.
HOLDER = '''
import os, sys
{fake}
from pathlib import Path
from tracker.errors import GameError
from webui.recording_lock import hold_recording
try:
    hold_recording(Path(sys.argv[1]))
    hold_recording(Path(sys.argv[1]))      # again: a no-op for the holder
except GameError as exc:
    print("refused:", exc, flush=True)
    sys.exit(3)
print("held", os.getpid(), flush=True)
sys.stdin.readline()
'''


def holder(folder: Path, windows: bool) -> subprocess.Popen:
    code = HOLDER.replace("{fake}", FAKE_MSVCRT if windows else "")
    return subprocess.Popen([sys.executable, "-c", code, str(folder)], cwd=ROOT, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize("windows", [False, True], ids=["flock", "msvcrt"])
class TestRecordingLock:
    def test_a_second_augur_is_refused_naming_the_first_until_it_ends(self, tmp_path, windows):
        folder = tmp_path / "rec"
        first = holder(folder, windows)
        try:
            said = first.stdout.readline().split()
            assert said[:1] == ["held"], (said, first.stderr.read())
            assert (folder / RECORDING_LOCK).read_text().strip() == said[1]
            second = holder(folder, windows)
            out, err = second.communicate(timeout=60)
            assert second.returncode == 3, err
            assert out.strip() == (f"refused: {folder.resolve()} is being recorded by another augur "
                                   f"(process {said[1]}): stop it, or give another --record")
        finally:
            first.communicate("\n", timeout=60)
        # the lock went with the process: the next augur takes the folder and writes its own id
        third = holder(folder, windows)
        said = third.stdout.readline().split()
        third.communicate("\n", timeout=60)
        assert said[:1] == ["held"] and said[1] != "", said
        assert (folder / RECORDING_LOCK).read_text().strip() == said[1]

    def test_a_holder_killed_leaves_no_stale_lock(self, tmp_path, windows):
        folder = tmp_path / "rec"
        first = holder(folder, windows)
        assert first.stdout.readline().startswith("held")
        first.kill()
        first.communicate(timeout=60)
        second = holder(folder, windows)
        assert second.stdout.readline().startswith("held"), second.stderr.read()
        second.communicate("\n", timeout=60)
