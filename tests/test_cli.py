"""The ``augur`` command line: output contracts and one-line errors with exit status 2."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from augur.cli import main
from tests.conftest import make_state
from tracker.board import load_board
from tracker.state import ObservedState

PLAYERS = "red,blue,yellow"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "augur", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def state_file(tmp_path):
    garrisons = {p: ("red", 2) for p in ("lusitania", "galicia", "terraconensis", "baetica", "italia")}
    garrisons.update({"armenia": ("blue", 3), "corsica": ("yellow", 2)})
    s = make_state(garrisons, {"ibericum": {"red": 2}}, centres=["italia", "galicia"], fill="green")
    path = tmp_path / "state.json"
    path.write_text(s.to_json())
    return path


class TestScoreCommand:
    def test_prints_one_object_keyed_by_colour(self, state_file, capsys):
        assert main(["score", str(state_file), "--players", PLAYERS]) == 0
        out = json.loads(capsys.readouterr().out)
        assert list(out) == ["red", "blue", "yellow"]
        assert out["red"] == {"empire": 1, "provinces": 1, "seas": 1, "centres": 2, "total": 5, "largest_empire": 4,
                              "province_count": 5, "controlled_seas": 1, "reinforcements": 5}
        assert out["blue"]["total"] == 0 and out["blue"]["reinforcements"] == 1

    def test_several_files_one_line_each(self, state_file, capsys):
        assert main(["score", str(state_file), str(state_file), "--players", PLAYERS]) == 0
        lines = capsys.readouterr().out.strip().splitlines()
        assert len(lines) == 2 and json.loads(lines[0]) == json.loads(lines[1])

    def test_a_game_file_line_scores_as_its_state(self, state_file, tmp_path, capsys):
        line = tmp_path / "line.json"
        line.write_text(json.dumps({"state": json.loads(state_file.read_text()), "turn": "blue"}))
        assert main(["score", str(state_file), str(line), "--players", PLAYERS]) == 0
        bare, wrapped = capsys.readouterr().out.strip().splitlines()
        assert json.loads(wrapped) == json.loads(bare) and json.loads(bare)["red"]["total"] == 5

    def test_variant_option(self, state_file, capsys):
        assert main(["score", str(state_file), "--players", PLAYERS, "--ruleset", "english-sheet"]) == 0
        assert json.loads(capsys.readouterr().out)["red"]["empire"] == 0


class TestBadInput:
    def test_ctrl_c_stops_a_command_with_one_line_not_a_traceback(self):
        import signal
        import time
        # a suite run in the background of a shell without job control inherits Ctrl-C ignored,
        # and Python then never turns it into KeyboardInterrupt: the command is given it back
        proc = subprocess.Popen([sys.executable, "-m", "augur", "bench", "tracker", "--games", "500"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,     # minutes of work
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        # the first game's line says the command is at work (a loaded machine can take longer
        # than a fixed wait just to import it), then it is stopped in the middle of the next
        assert proc.stdout.readline().startswith("game 1:")
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and err.strip() == "augur: stopped", err

    @pytest.mark.parametrize("content, fragment", [
        ('{"regions": {"atlantis": {}}}', "unknown region"),
        ('{"regions": {"baetica": {"pink": {"legionary": 1}}}}', "unknown colour"),
        ('{"regions": {"baetica": {"red": {"tank": 1}}}}', "unknown piece kind"),
        ('{"regions": {"baetica": {"red": {"legionary": -2}}}}', "negative count"),
        ('{"regions": {"baetica": {"red": {"legionary": 1}, "blue": {"legionary": 1}}}}', "two colours"),
        ('{"regions": {"baetica": {"red": {"trireme": 1}}}}', "trireme on land"),
        ('{"regions": {', "malformed JSON"),
    ])
    def test_bad_state_one_line_exit_2(self, tmp_path, content, fragment):
        path = tmp_path / "bad.json"
        path.write_text(content)
        proc = run("score", str(path), "--players", PLAYERS)
        assert proc.returncode == 2
        assert proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and fragment in lines[0] and "Traceback" not in proc.stderr

    @pytest.mark.parametrize("extra, said", [
        (["-o", "{tmp}/no/cal.json"], "cannot write {tmp}/no/cal.json: there is no folder {tmp}/no"),
        (["-o", "{tmp}/cal.json", "--preview", "{tmp}/no/p.jpg"], "there is no folder {tmp}/no"),
        (["-o", "{tmp}/cal.json", "--players", "red,red,blue"], "a colour is listed twice among the players"),
        (["-o", "{tmp}/cal.json", "--players", "red,pink,blue"], "unknown player colour 'pink'"),
    ])
    def test_calibrate_refuses_what_it_could_not_write_or_learn_before_the_camera_is_read(self, tmp_path, capsys,
                                                                                         extra, said):
        # camera 97 is not there: an output or a colour checked only after the calibration would
        # have said that instead (and after three seconds of a real camera)
        code = main(["calibrate", "--camera", "97"] + [a.replace("{tmp}", str(tmp_path)) for a in extra])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and said.replace("{tmp}", str(tmp_path)) in err, err
        assert list(tmp_path.iterdir()) == []

    @pytest.mark.parametrize("argv, said", [
        (["simulate", "-o", "{tmp}/no/game.jsonl"], "{tmp}/no/game.jsonl: No such file or directory"),
        (["simulate", "-o", "{tmp}/a file/game.jsonl"], "{tmp}/a file/game.jsonl: part of this path is a file"),
        (["synth", "sheet", "--n", "1", "-o", "{tmp}/a file/sheet.png"], "{tmp}/a file: this is a file, not a folder"),
        (["synth", "images", "--n", "1", "-o", "{tmp}/a file/images"], "part of this path is a file, not a folder"),
    ])
    def test_an_output_that_cannot_be_written_is_one_line(self, tmp_path, capsys, argv, said):
        # these wrote through open() and mkdir() with no check of their own: an OSError traceback
        (tmp_path / "a file").write_text("a file, not a folder")
        assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("augur: error: ") and said.replace("{tmp}", str(tmp_path)) in err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a file"]

    def test_a_dashboard_port_held_by_another_program_is_one_line_before_any_work(self, tmp_path, capsys):
        """Before session 109 the web server found out only once the game was open, and said so in
        two lines of its own with exit status 1; a second ``augur run`` had resumed the game by then."""
        import socket
        game = tmp_path / "game.jsonl"
        assert main(["simulate", "--turns", "2", "-o", str(game)]) == 0
        capsys.readouterr()
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", 0))
            holder.listen()
            port = str(holder.getsockname()[1])
            for argv in (["replay", str(game), "--serve", "--port", port, "--record", str(tmp_path / "rec")],
                         ["demo", "--port", port, "--record", str(tmp_path / "rec")],
                         ["review", str(tmp_path / "no archive.zip"), "--port", port]):
                assert main(argv) == 2, argv
                captured = capsys.readouterr()
                assert captured.out == "" and captured.err.count("\n") == 1
                assert f"cannot serve the dashboard on 127.0.0.1:{port}" in captured.err and "--port" in captured.err
        assert not (tmp_path / "rec").exists()

    def test_missing_file(self, tmp_path, capsys):
        assert main(["score", str(tmp_path / "nope.json"), "--players", PLAYERS]) == 2
        assert capsys.readouterr().err == f"augur: error: {tmp_path / 'nope.json'}: no such file\n"   # named once

    def test_bad_players(self, state_file, capsys):
        assert main(["score", str(state_file), "--players", "red,purple,blue"]) == 2
        assert "unknown player colour 'purple'" in capsys.readouterr().err

    def test_unknown_variant(self, state_file, capsys):
        assert main(["score", str(state_file), "--players", PLAYERS, "--ruleset", "2020"]) == 2
        assert "unknown ruleset '2020'" in capsys.readouterr().err

    def test_unknown_network_shape_before_any_rendering(self, tmp_path, capsys):
        from vision.density_train import ARCHS
        assert main(["train-counter", "--arch", "huge", "--epochs", "0", "--work", str(tmp_path / "w")]) == 2
        assert f"unknown network shape 'huge' (expected {', '.join(sorted(ARCHS))})" in capsys.readouterr().err
        assert {"wide", "lean", "lean24", "broad"} <= set(ARCHS)
        assert not (tmp_path / "w").exists()

    def test_a_missing_teacher_or_a_negative_weight_before_any_rendering(self, tmp_path, capsys):
        assert main(["train-counter", "--teacher", str(tmp_path / "t.pt"), "--epochs", "0",
                     "--work", str(tmp_path / "w")]) == 2
        assert f"teacher checkpoint not found: {tmp_path / 't.pt'}" in capsys.readouterr().err
        assert main(["train-counter", "--distill", "-1", "--epochs", "0", "--work", str(tmp_path / "w")]) == 2
        assert "--distill must be a weight of at least 0, not -1.0" in capsys.readouterr().err
        assert not (tmp_path / "w").exists()

    @staticmethod
    def _training_error(err: str, with_torch: str) -> None:
        """Without torch a training command says which extra to install; with it, ``with_torch``;
        either way in one line."""
        import importlib.util
        assert ("training needs torch" if importlib.util.find_spec("torch") is None else with_torch) in err
        assert len(err.strip().splitlines()) == 1

    def test_a_teacher_that_is_no_checkpoint_before_any_rendering(self, tmp_path, capsys):
        (tmp_path / "t.pt").write_bytes(b"not a checkpoint")
        assert main(["train-counter", "--teacher", str(tmp_path / "t.pt"), "--epochs", "1",
                     "--work", str(tmp_path / "w")]) == 2
        self._training_error(capsys.readouterr().err, f"not a checkpoint of weights: {tmp_path / 't.pt'}")
        assert not (tmp_path / "w").exists()

    def test_a_rendering_deadline_of_no_time_before_any_rendering(self, tmp_path, capsys):
        assert main(["train-counter", "--render-for", "0", "--epochs", "0", "--work", str(tmp_path / "w")]) == 2
        assert "--render-for must be a positive number of seconds, not 0.0" in capsys.readouterr().err
        assert not (tmp_path / "w").exists()

    def test_averaging_missing_checkpoints_is_one_line(self, tmp_path, capsys):
        assert main(["average-counter", str(tmp_path / "a.pt"), str(tmp_path / "b.pt"),
                     "--models", str(tmp_path / "m")]) == 2
        self._training_error(capsys.readouterr().err, f"checkpoint not found: {tmp_path / 'a.pt'}")
        assert not (tmp_path / "m").exists()

    def test_spill_share_outside_zero_to_one_before_any_rendering(self, tmp_path, capsys):
        assert main(["train-counter", "--spill-share", "30", "--epochs", "0", "--work", str(tmp_path / "w")]) == 2
        assert "--spill-share must lie between 0 and 1, not 30.0" in capsys.readouterr().err
        assert not (tmp_path / "w").exists()

    def test_rich_share_outside_zero_to_one_before_any_rendering(self, tmp_path, capsys):
        assert main(["train-counter", "--rich-share", "-0.5", "--epochs", "0", "--work", str(tmp_path / "w")]) == 2
        assert "--rich-share must lie between 0 and 1, not -0.5" in capsys.readouterr().err
        assert not (tmp_path / "w").exists()

    def test_missing_weights_to_continue_from_before_any_rendering(self, tmp_path, capsys):
        for command in ("train-summits", "train-hulls"):
            assert main([command, "--init", str(tmp_path / "nope.pt"), "--work", str(tmp_path / "w")]) == 2
            assert f"no weights to continue from at {tmp_path / 'nope.pt'}" in capsys.readouterr().err
        assert not (tmp_path / "w").exists()

    def test_a_missing_print_photo_before_any_rendering(self, tmp_path, capsys):
        for command in ("train-summits", "train-hulls"):
            assert main([command, "--board-photo", str(tmp_path / "board.jpg"), "--epochs", "0",
                         "--work", str(tmp_path / "w")]) == 2
            assert capsys.readouterr().err == f"augur: error: {tmp_path / 'board.jpg'}: no such image\n"
        assert not (tmp_path / "w").exists()

    @pytest.mark.parametrize("text", ['{"state": 3}', '{"regoins": {}}', '{"board": "spqrisiko"}'])
    def test_a_state_file_without_regions_is_not_an_empty_board(self, tmp_path, capsys, text):
        path = tmp_path / "s.json"
        path.write_text(text)
        assert main(["score", str(path), "--players", PLAYERS]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith(f"augur: error: {path}: ") and "regions" in err

    def test_a_game_file_line_without_a_state(self, tmp_path, capsys):
        path = tmp_path / "game.jsonl"
        path.write_text('{"game": {"players": ["red", "blue", "yellow"]}}\n{"regions": {}}\n{"turn": "blue"}\n')
        assert main(["replay", str(path)]) == 2
        assert "line 3: a board state must have 'regions'" in capsys.readouterr().err

    def test_malformed_game_file(self, tmp_path, capsys):
        path = tmp_path / "game.jsonl"
        path.write_text('{"game": {"players": ["red", "blue", "yellow"]}}\n{"regions": {}}\n{"regions": \n')
        assert main(["replay", str(path)]) == 2
        assert "line 3: malformed JSON" in capsys.readouterr().err


class TestNumbersOnTheCommandLine:
    """A count, seed, port or rate out of range is refused by the parser, in one line, before any
    work starts (``augur.cli._whole``): these used to end in a traceback deep inside the command,
    or in a bench waiting forever, or in a demo quietly playing fewer frames."""

    def test_every_number_option_has_a_range(self):
        import argparse
        from augur.cli import build_parser
        parser = build_parser()
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
        bare = [f"{name} {'/'.join(a.option_strings)}" for name, sub in commands.items() for a in sub._actions
                if a.type in (int, float)]
        # the fractions a command checks itself, with its own words (a share lies between 0 and 1)
        checked = {"--print-share", "--relief", "--render-for", "--rich-share", "--spill-share", "--distill",
                   "--toppled"}
        assert [b for b in bare if b.split()[-1] not in checked] == []
        ranged = [a for sub in commands.values() for a in sub._actions if hasattr(a.type, "minimum")]
        assert len(ranged) > 40

    @pytest.mark.parametrize("argv, option, said", [
        (["bench", "vision", "--images", "0"], "--images", "must be at least 1, not 0"),      # divided by zero
        (["bench", "setup", "--games", "0"], "--games", "must be at least 1, not 0"),         # an IndexError
        (["bench", "tracker", "--games", "-1"], "--games", "must be at least 1, not -1"),     # a StatisticsError
        (["bench", "dashboard", "--commits", "-5"], "--commits", "must be at least 1"),       # waited forever
        (["bench", "synth", "--dataset", "-1"], "--dataset", "must be at least 1"),
        (["bench", "game", "--turns", "x"], "--turns", "'x' is not a whole number"),
        (["demo", "--frames", "-3", "--no-serve", "--fast"], "--frames", "must be at least 1"),  # 3 frames fewer
        (["synth", "images", "--seed", "-7", "-o", "{out}"], "--seed", "must be at least 0"),  # NumPy refused it
        (["synth", "images", "--n", "0", "-o", "{out}"], "--n", "must be at least 1"),
        (["simulate", "--turns", "-5", "-o", "{out}"], "--turns", "must be at least 1"),       # an empty game
        (["markers", "--dpi", "0", "-o", "{out}.png"], "--dpi", "must be from 72 to 1200"),   # an OpenCV assertion
        (["markers", "--dpi", "100000", "-o", "{out}.png"], "--dpi", "must be from 72 to 1200"),
        (["quantize-counter", "--tables", "0", "--out", "{out}"], "--tables", "must be at least 1"),
        (["fit-confidence", "--images", "-1", "0", "0", "--out", "{out}"], "--images", "must be at least 0"),
        (["train-counter", "--lr", "0", "--epochs", "0", "--work", "{out}"], "--lr", "must be more than 0"),
        (["train-counter", "--lr", "nan", "--epochs", "0", "--work", "{out}"], "--lr", "must be more than 0"),
        (["run", "--port", "70000", "--calibration", "c.json", "--players", PLAYERS], "--port",
         "must be from 1 to 65535"),
    ])
    def test_a_number_out_of_range_is_one_line_before_any_work(self, tmp_path, capsys, argv, option, said):
        out = tmp_path / "out"
        assert main([a.replace("{out}", str(out)) for a in argv]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1, captured.err
        assert captured.err.startswith(f"augur: error: argument {option}: {said}")
        assert not list(tmp_path.iterdir())

    def test_a_missing_argument_is_one_line_that_says_where_the_options_are(self, capsys):
        assert main(["count"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "required: images, --calibration" in err and "(see augur count --help)" in err

    def test_help_is_still_the_usage_and_no_error(self, capsys):
        assert main(["bench", "--help"]) == 0
        assert capsys.readouterr().out.startswith("usage: augur bench")

    def test_the_synth_bench_measures_a_dataset_shorter_than_its_first_mark(self, capsys):
        from vision.synth.bench import run_synth_bench
        figures = run_synth_bench(n=1, dataset=3)
        assert len(figures["rss_mb_after_10_mid_end"]) == 3 and min(figures["rss_mb_after_10_mid_end"]) > 0
        assert "after 3 images" in capsys.readouterr().out


class TestReplayAndSimulate:
    def test_simulate_then_replay(self, tmp_path, capsys):
        path = tmp_path / "game.jsonl"
        assert main(["simulate", "--players", "red,blue,yellow,green", "--seed", "4", "--turns", "20",
                     "-o", str(path)]) == 0
        capsys.readouterr()
        assert main(["replay", str(path)]) == 0
        out = capsys.readouterr().out
        assert "== round 1, turn 1: red claims" in out
        assert "places" in out and "0 violations" in out

    def test_replay_follows_a_setup_filmed_from_the_empty_board(self, tmp_path, capsys):
        """A game file that begins on the empty board: the set-up placement by placement, then
        the game as from its finished set-up, with the same score."""
        path = tmp_path / "game.jsonl"
        main(["simulate", "--seed", "6", "--turns", "8", "-o", str(path)])
        capsys.readouterr()
        assert main(["replay", str(path), "--json"]) == 0
        plain = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        header, setup, *rest = path.read_text().splitlines()
        final = json.loads(setup)["state"]
        placed, lines = {}, [json.dumps({"state": {"board": final["board"], "regions": {}}})]
        for province in sorted(final["regions"]):
            placed[province] = final["regions"][province]
            lines.append(json.dumps({"state": {"board": final["board"], "regions": dict(placed)}}))
        followed = tmp_path / "followed.jsonl"
        followed.write_text("\n".join([header, *lines, *rest]) + "\n")
        assert main(["replay", str(followed), "--json"]) == 0
        rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        assert [e["kind"] for r in rows[1:len(lines)] for e in r["events"]] == ["setup_placement"] * (len(lines) - 1)
        # the same claims, the first on the set-up done; but the placements, made here in the
        # order of the provinces' names rather than of play (§3.7), are questioned, and the claims
        # made while they still read so hang on them
        def claims(rs):
            return [dict(c, rests_on=None) for r in rs for c in r["scores"]]

        assert claims(rows[len(lines) - 1:]) == claims(plain)
        assert all(c["rests_on"] == [] for r in plain for c in r["scores"])
        assert rows[len(lines) - 1]["scores"][0]["rests_on"] and \
            set(rows[len(lines) - 1]["scores"][0]["rests_on"]) <= set(final["regions"])
        assert [dict(r, scores=None) for r in rows[len(lines):]] == \
            [dict(r, line=r["line"] + len(lines) - 1, scores=None) for r in plain[1:]]
        assert main(["replay", str(followed)]) == 0
        out = capsys.readouterr().out
        assert out.count(" occupies ") == len(lines) - 1 and "0 violations" in out

    def test_replay_json_lines(self, tmp_path, capsys):
        path = tmp_path / "game.jsonl"
        main(["simulate", "--seed", "2", "--turns", "9", "-o", str(path)])
        capsys.readouterr()
        assert main(["replay", str(path), "--json"]) == 0
        rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        assert len(rows) == len(path.read_text().splitlines()) - 1   # minus the header
        assert rows[0]["scores"][0]["colour"] == "red" and rows[1]["actor"] == "red"
        assert any(r["scores"] and r["scores"][0]["colour"] == "blue" for r in rows)

    def test_replay_names_the_doubted_counts_a_claim_hangs_on(self, tmp_path, capsys):
        """Nine provinces each after the set-up: red claims no province point, but one of blue's
        read in doubt might be red's, so red's first claim hangs on it; blue's claim next turn,
        on a board read surely, hangs on nothing."""
        path = tmp_path / "game.jsonl"
        main(["simulate", "--seed", "2", "--turns", "9", "-o", str(path)])
        capsys.readouterr()
        header, setup, *rest = path.read_text().splitlines()
        line = json.loads(setup)
        blue = sorted(p for p, armies in line["state"]["regions"].items() if "blue" in armies)[0]
        line["state"]["confidence"] = {blue: 0.3}
        path.write_text("\n".join([header, json.dumps(line), *rest]) + "\n")
        assert main(["replay", str(path), "--json"]) == 0
        claims = [c for r in map(json.loads, capsys.readouterr().out.splitlines()) for c in r["scores"]]
        assert (claims[0]["colour"], claims[0]["rests_on"]) == ("red", [blue])
        assert (claims[1]["colour"], claims[1]["rests_on"]) == ("blue", [])
        assert main(["replay", str(path)]) == 0
        name = load_board("spqrisiko").name(blue)
        assert f"red claims 0 VP (empire 0, provinces 0, seas 0, centres 0) -> 0 (hangs on {name}: marked for a check)" \
            in capsys.readouterr().out

    def test_simulated_files_are_reproducible(self, tmp_path, capsys):
        a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
        main(["simulate", "--seed", "11", "--turns", "15", "-o", str(a)])
        main(["simulate", "--seed", "11", "--turns", "15", "-o", str(b)])
        assert a.read_bytes() == b.read_bytes()

    def test_narration_of_a_simulated_game(self):
        proc = run("narrate", "--turns", "8")
        assert proc.returncode == 0, proc.stderr
        assert "Augur narration" in proc.stdout and "claims" in proc.stdout

    def test_bench_vision_refuses_a_bad_frame_size_before_rendering(self):
        proc = run("bench", "vision", "--size", "1920by1080", "--images", "1")
        assert proc.returncode == 2 and "--size must look like 1280x720" in proc.stderr
        assert "Traceback" not in proc.stderr and proc.stdout == ""

    def test_bench_vision_refuses_a_bad_relight_before_rendering(self):
        for value in ("--relight=warm", "--relight=-2000:9"):
            proc = run("bench", "vision", value, "--images", "1")
            assert proc.returncode == 2 and "--relight" in proc.stderr, proc.stderr
            assert "Traceback" not in proc.stderr and proc.stdout == ""

    def test_a_share_knocked_over_must_be_a_share(self, tmp_path):
        for argv in (["bench", "vision", "--images", "1", "--toppled", "1.5"],
                     ["fit-summit-counts", "--images", "1", "0", "0", "--toppled", "-0.1", "--out", str(tmp_path / "c")],
                     ["train-summits", "--images", "1", "0", "0", "--rich", "0", "0", "0", "--epochs", "0",
                      "--toppled", "2", "--work", str(tmp_path / "w")]):
            proc = run(*argv)
            assert proc.returncode == 2 and "--toppled" in proc.stderr and "a share, 0 to 1" in proc.stderr, proc.stderr
            assert "Traceback" not in proc.stderr and proc.stdout == ""
        assert not (tmp_path / "w").exists() and not (tmp_path / "c").exists()

    def test_bench_game_refuses_the_vision_bench_options_it_would_ignore(self):
        for option in (["--relight=-2000:0.7"], ["--relief", "4"], ["--toppled", "0.1"]):
            proc = run("bench", "game", "--games", "1", "--turns", "1", *option)
            assert proc.returncode == 2 and option[0].split("=")[0] in proc.stderr, proc.stderr
            assert "bench vision" in proc.stderr and "Traceback" not in proc.stderr and proc.stdout == ""

    def test_bench_game_refuses_a_missing_board_photo_before_rendering(self, tmp_path):
        proc = run("bench", "game", "--games", "1", "--turns", "1", "--board-photo", str(tmp_path / "missing.jpg"))
        assert proc.returncode == 2 and "no such image" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""

    def test_bench_vision_refuses_an_unreadable_board_photo_before_rendering(self, tmp_path):
        bad = tmp_path / "board.jpg"
        bad.write_bytes(b"not a jpeg")
        for photo, said in ((str(bad), "not a readable image"), (str(tmp_path / "missing.jpg"), "no such image")):
            proc = run("bench", "vision", "--board-photo", photo, "--images", "1")
            assert proc.returncode == 2 and said in proc.stderr, proc.stderr
            assert "Traceback" not in proc.stderr and proc.stdout == ""
            assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr     # no warning of OpenCV's besides

    def test_every_rotate_choice_is_a_turn_the_photo_loader_makes(self, tmp_path):
        import cv2
        import numpy as np
        from augur.cli import ROTATIONS
        from calibration.region_map import load_north_up_photo
        photo = tmp_path / "board.png"
        img = np.zeros((20, 30, 3), np.uint8)
        img[:5, :5] = 255                               # the top left corner, to tell the turns apart
        cv2.imwrite(str(photo), img)
        turned = {r: load_north_up_photo(photo, r) for r in ROTATIONS}
        assert np.array_equal(turned["none"], img)
        assert {r: t.shape[:2] for r, t in turned.items()} == {"none": (20, 30), "cw": (30, 20), "ccw": (30, 20),
                                                                "180": (20, 30)}
        assert len({t.tobytes() for t in turned.values()}) == 4

    def test_train_counter_refuses_an_unreadable_board_photo_before_rendering(self, tmp_path):
        proc = run("train-counter", "--board-photo", str(tmp_path / "missing.jpg"), "--epochs", "0",
                   "--images", "1", "0", "0", "--work", str(tmp_path / "work"))
        assert proc.returncode == 2 and "no such image" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and not list((tmp_path / "work").rglob("*.npz"))
        proc = run("train-counter", "--board-photo", str(tmp_path / "missing.jpg"), "--print-share", "1.5",
                   "--epochs", "0", "--images", "1", "0", "0", "--work", str(tmp_path / "work"))
        assert proc.returncode == 2 and "--print-share must lie" in proc.stderr, proc.stderr

    def test_bench_tracker_prints_figures(self):
        proc = run("bench", "tracker", "--games", "1", "--turns", "30")
        assert proc.returncode == 0, proc.stderr
        assert "ms per transition" in proc.stdout


@pytest.fixture(scope="module")
def demo_cache(tmp_path_factory):
    """The demo video rendered once into a cache of these tests' own (not the user's)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AUGUR_CACHE", str(tmp_path_factory.mktemp("augur-cache")))
        yield


class TestExportAndReview:
    def test_an_evening_s_recording_is_exported_and_reviewed_with_every_game(self, tmp_path, capsys):
        from tests.test_webui import PLAYERS, game_states
        from webui.live import LiveGame
        from webui.store import Store
        store = Store(tmp_path / "rec")
        live = LiveGame.open(store, PLAYERS, resume=False)
        for s in game_states(3):
            live.commit(s, b"\xff\xd8frame")
        live.restart(PLAYERS)
        store.close()
        assert main(["export", str(tmp_path / "rec"), "-o", str(tmp_path / "evening.zip")]) == 0
        capsys.readouterr()
        assert main(["review", str(tmp_path / "evening.zip"), "--no-serve"]) == 0
        assert capsys.readouterr().out.strip().endswith(
            "evening.zip: 1 snapshot of its last game; 1 earlier game too, in the Review tab")


    def test_a_reviewed_recording_is_served_for_review_and_refuses_changes(self, tmp_path):
        """``augur review`` serves the page in its review-only form (nothing offered that would
        change the game), and the server refuses a change sent all the same."""
        import socket
        import time
        import urllib.error
        import urllib.request

        from tests.test_webui import PLAYERS, game_states
        from webui.live import LiveGame
        from webui.store import Store
        store = Store(tmp_path / "rec")
        live = LiveGame.open(store, PLAYERS, resume=False)
        live.commit(game_states(1)[0], b"\xff\xd8frame")
        store.close()
        assert main(["export", str(tmp_path / "rec"), "-o", str(tmp_path / "game.zip")]) == 0
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen([sys.executable, "-m", "augur", "review", str(tmp_path / "game.zip"), "--port", str(port)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            page, deadline = None, time.time() + 60
            while page is None and time.time() < deadline:
                try:
                    page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode()
                except OSError:
                    time.sleep(0.3)
            assert page is not None and '<meta name="review-only" content="yes">' in page
            token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
            ask = urllib.request.Request(f"http://127.0.0.1:{port}/api/corrections", method="POST",
                                         data=b'{"region": "italia", "pieces": {}}',
                                         headers={"Content-Type": "application/json", "X-CSRF-Token": token})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(ask, timeout=5)
            assert refused.value.code == 403
        finally:
            proc.terminate()
            proc.wait(timeout=30)


class TestDemo:
    """``augur demo``, the README's main job: the embedded game video through vision, tracker and store."""

    def test_plays_and_records_the_embedded_game(self, demo_cache, tmp_path):
        from webui.store import Store
        proc = subprocess.run([sys.executable, "-m", "augur", "demo", "--no-serve", "--fast", "--frames", "60",
                               "--record", str(tmp_path / "rec")], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        summary = re.search(r"-- (\d+) frames, (\d+) committed states", proc.stdout)
        assert summary and int(summary[1]) == 60 and int(summary[2]) >= 1, proc.stdout
        store = Store(tmp_path / "rec")
        game = store.last_game()
        assert game is not None and game["players"] == ["red", "blue", "yellow", "green"]
        assert len(store.snapshots(game["id"])) >= int(summary[2])

    def test_the_setup_demo_follows_the_placements_in_the_order_of_play(self, demo_cache, tmp_path):
        """``augur demo --setup``: the set-up film from the empty board, each placement followed
        (§3.7), in turn, with no verdict."""
        from webui.store import Store
        proc = subprocess.run([sys.executable, "-m", "augur", "demo", "--setup", "--no-serve", "--fast",
                               "--frames", "220", "--record", str(tmp_path / "rec")],
                              capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stderr
        store = Store(tmp_path / "rec")
        snaps = store.snapshots(store.last_game()["id"])
        assert {s.source for s in snaps} == {"placing"} and not any(s.verdicts for s in snaps)
        placed = [e for s in snaps for e in s.events]
        assert len(placed) >= 4 and [e["actor"] for e in placed[:4]] == ["red", "black", "blue", "black"]
        assert proc.stdout.count(" occupies ") == len(placed), proc.stdout

    def test_the_whole_demo_game_is_committed_move_by_move_without_a_violation(self, demo_cache):
        """The first thing a new user sees. A gate that took a hand's first sliver for the still
        table committed 3 of its 8 moves, and a legionary stood two bases off Baleares, read
        just past the spill reach, gave a violation at the set-up that stayed all game."""
        from vision.game_bench import play_video_folder
        from vision.synth.video import ensure_default_video
        f = play_video_folder(ensure_default_video())
        assert f.moves == 8 and len(f.commit_after_hand_s) == f.moves
        assert (f.violations, f.truth_violations, f.phantom_changes, f.missed_changes) == (0, 0, 0, 0)
        assert f.wrong_regions <= 1

    def test_bench_measures_the_live_loop_in_a_process_of_its_own(self, demo_cache):
        from vision.bench import bench_live_memory
        out = bench_live_memory(frames=24)
        assert out["frames"] == 24
        # the child loaded the counting models and read frames: far more than a bare interpreter
        assert out["peak_rss_mb"] > 100

    def test_bench_measures_a_phones_film_calibrated_and_followed(self, demo_cache, capsys):
        """``augur bench memory``'s second half, at a small size to stay quick: the demo's film
        scaled, calibrated on its first seconds and followed to its end, each in a child."""
        from vision.bench import bench_phone_film
        out = bench_phone_film((960, 540))
        assert out["size"] == [960, 540] and out["frames"] > 300 and out["commits"] >= 8
        assert out["calibrate_peak_rss_mb"] > 100 and out["run_peak_rss_mb"] > 100
        assert "[film 960x540]" in capsys.readouterr().out

    def test_bench_times_commits_on_the_wall_clock_reading_the_newest_frame(self, demo_cache):
        from vision.bench import bench_real_time_commit
        out = bench_real_time_commit(limit=60)
        # in its first five seconds the demo video shows one move: a hand from frame 14 to 33
        assert out["frames"] == 60 and out["moves"] == 1
        assert out["counted"] + out["dropped"] <= 60 and out["committed"] == len(out["delays_s"]) <= 1
        assert all(d > 0 for d in out["delays_s"])

    def test_the_real_time_bench_plays_a_video_folder_read_whole(self, demo_cache, capsys):
        from vision.bench import bench_real_time_commit
        from vision.synth.video import ensure_default_video
        out = bench_real_time_commit(limit=20, folder=str(ensure_default_video()), partial=False)
        assert out["frames"] == 20 and out["moves"] == 0
        assert "[real time] the demo video at 12 frames/s" in capsys.readouterr().out


class TestFollowAVideo:
    """``augur calibrate --video`` and ``augur run --video``: a film of the table, recorded by a
    phone say, followed as a camera's frames would be. The film here is the demo's: three
    seconds of the empty board, then its game's first frames, written at 24 frames a second
    (each frame twice), read back at 12."""

    FRAMES = 150

    @pytest.fixture(scope="class")
    def film(self, demo_cache, tmp_path_factory):
        import cv2
        from vision.synth.video import ensure_default_video
        folder = ensure_default_video()
        empty = cv2.imread(str(folder / "calibration.jpg"))
        h, w = empty.shape[:2]
        path = tmp_path_factory.mktemp("film") / "table.avi"
        out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 24, (w, h))
        for _ in range(72):
            out.write(empty)
        for f in sorted((folder / "frames").glob("*.jpg"))[: self.FRAMES]:
            img = cv2.imread(str(f))
            out.write(img)
            out.write(img)
        out.release()
        small = path.with_name("small.avi")
        out = cv2.VideoWriter(str(small), cv2.VideoWriter_fourcc(*"MJPG"), 12, (w // 2, h // 2))
        for _ in range(3):
            out.write(cv2.resize(empty, (w // 2, h // 2)))
        out.release()
        return path, small

    def test_a_recording_another_augur_is_writing_is_refused_in_one_line(self, film, tmp_path):
        """Two ``augur run`` on one recording would both resume its game and write into it."""
        fcntl = pytest.importorskip("fcntl", reason="recordings are locked where the system has flock")
        path, _ = film
        cal = tmp_path / "cal.json"
        assert run("calibrate", "--video", str(path), "-o", str(cal)).returncode == 0
        (tmp_path / "rec").mkdir()
        with open(tmp_path / "rec" / "augur.lock", "a+") as held:       # as the augur writing it holds it
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.write("4242\n")
            held.flush()
            proc = run("run", "--video", str(path), "--calibration", str(cal), "--players", "red,blue,yellow,green",
                       "--record", str(tmp_path / "rec"), "--no-serve")
        err = proc.stderr.strip()
        assert proc.returncode == 2 and len(err.splitlines()) == 1, err
        assert "is being recorded by another augur (process 4242): stop it, or give another --record" in err
        assert sorted(p.name for p in (tmp_path / "rec").iterdir()) == ["augur.lock"]
        # once it has stopped, the recording is this one's
        proc = run("run", "--video", str(path), "--calibration", str(cal), "--players", "red,blue,yellow,green",
                   "--record", str(tmp_path / "rec"), "--no-serve")
        assert proc.returncode == 0 and (tmp_path / "rec" / "game.sqlite").is_file(), proc.stderr

    def test_a_film_is_calibrated_on_its_first_seconds_and_followed_to_its_end(self, film, tmp_path):
        from webui.store import Store
        path, _ = film
        cal = tmp_path / "cal.json"
        proc = run("calibrate", "--video", str(path), "-o", str(cal))
        assert proc.returncode == 0 and "composed of 9 frames" in proc.stdout, proc.stderr
        follow = ("run", "--video", str(path), "--calibration", str(cal), "--players", "red,blue,yellow,green",
                  "--record", str(tmp_path / "rec"), "--no-serve")
        proc = run(*follow)
        assert proc.returncode == 0, proc.stderr
        summary = re.search(r"-- the video has ended: (\d+) frames read, (\d+) committed states", proc.stdout)
        assert summary and int(summary[1]) == 36 + self.FRAMES, proc.stdout
        # the empty board, the set-up on it, then red's first turn: placed, and the attack on Numidia
        assert " occupies " in proc.stdout and "red places 3 legionaries in Mauretania" in proc.stdout
        assert "red attacks Numidia" in proc.stdout
        # the score markers, still on box 0, as the camera last read the track
        assert "; score markers seen on red 0, blue 0, yellow 0, green 0; recorded in" in proc.stdout
        store = Store(tmp_path / "rec")
        first = store.last_game()
        assert len(store.snapshots(first["id"])) == int(summary[2]) >= 3
        store.close()
        # followed again into the same recording: a new game beside the first, which stays whole
        assert run(*follow).returncode == 0
        store = Store(tmp_path / "rec")
        assert store.last_game()["id"] != first["id"] and len(store.snapshots(first["id"])) == int(summary[2])
        store.close()

    def test_a_film_cut_short_is_followed_as_far_as_it_goes_and_said_so(self, film, tmp_path):
        path, _ = film
        cal = tmp_path / "cal.json"
        assert run("calibrate", "--video", str(path), "-o", str(cal)).returncode == 0
        cut = tmp_path / "cut.avi"
        cut.write_bytes(path.read_bytes()[: path.stat().st_size // 3])
        proc = run("run", "--video", str(cut), "--calibration", str(cal), "--players", "red,blue,yellow,green",
                   "--record", str(tmp_path / "rec"), "--no-serve")
        assert proc.returncode == 0 and "the video has ended (cut short: " in proc.stdout, proc.stderr

    def test_a_bad_film_is_one_line_and_records_nothing(self, film, tmp_path):
        path, small = film
        cal = tmp_path / "cal.json"
        assert run("calibrate", "--video", str(path), "-o", str(cal)).returncode == 0
        (tmp_path / "notes.avi").write_text("not a film")
        (tmp_path / "photo.jpg").write_text("not a photo either")
        for video, said in ((tmp_path / "none.avi", "no such video"), (tmp_path / "notes.avi", "not a video"),
                            (tmp_path / "photo.jpg", "not a video"),
                            (small, "delivers 640x360 frames, the calibration was made at 1280x720: calibrate "
                                    "again from this video")):
            proc = run("run", "--video", str(video), "--calibration", str(cal), "--players", "red,blue,yellow",
                       "--record", str(tmp_path / "rec"), "--no-serve")
            err = proc.stderr.strip()
            assert proc.returncode == 2 and said in err and len(err.splitlines()) == 1, err
            assert not (tmp_path / "rec").exists()
        proc = run("calibrate", "--video", str(tmp_path / "notes.avi"), "-o", str(tmp_path / "x.json"))
        assert proc.returncode == 2 and "not a video" in proc.stderr
        proc = run("run", "--calibration", str(cal), "--players", "red,blue,yellow", "--no-serve")
        assert proc.returncode == 2 and "--no-serve is for --video" in proc.stderr


class TestOtherRulesets:
    @pytest.mark.parametrize("ruleset", ["classic", "tournament-2v2", "lotr", "lotr-classic"])
    def test_simulate_then_replay(self, ruleset, tmp_path, capsys):
        game = tmp_path / "g.jsonl"
        assert main(["simulate", "--ruleset", ruleset, "--seed", "1", "--turns", "12", "-o", str(game)]) == 0
        capsys.readouterr()
        assert main(["replay", str(game)]) == 0
        out = capsys.readouterr().out
        assert out.rstrip().endswith("0 warnings, 0 violations")
        assert "attacks" in out

    def test_score_a_classic_board(self, tmp_path, capsys):
        from tracker.board import load_board
        board = load_board("risiko-classic")
        garrisons = {t: ("red" if t in board.groups["oceania"].members else "blue", 2) for t in board.provinces}
        path = tmp_path / "s.json"
        path.write_text(ObservedState.from_summary(board, garrisons).to_json())
        assert main(["score", str(path), "--players", "red,blue,yellow", "--ruleset", "classic"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["red"]["groups"] == ["oceania"] and out["red"]["reinforcements"] == 4 // 3 + 2
        assert main(["score", str(path), "--players", "red,blue,yellow"]) == 2
        assert "plays on spqrisiko" in capsys.readouterr().err

    @pytest.mark.parametrize("objectives, said", [
        ({"red": 5}, "an objective is an object"),                               # was an AttributeError
        ({"red": None}, "an objective is an object"),
        ({"red": {"territories": 5}}, "'territories' is a list of names"),        # was a TypeError
        ({"red": {"territories": [[1]]}}, "'territories' is a list of names"),
        ({"red": {"continents": ["asiaa"]}}, "names 'asiaa', which is no territory or continent"),  # scored nothing
        ({"red": {"territories": ["atlantis"]}}, "names 'atlantis'"),
        ({"purple": {"territories": ["egitto"]}}, "an objective is given for 'purple', who is not playing"),
    ])
    def test_tournament_objectives_that_do_not_fit_are_one_line(self, tmp_path, capsys, objectives, said):
        from tracker.board import load_board
        board = load_board("risiko-classic")
        garrisons = {t: (("red", "blue", "yellow", "green")[k % 4], 2) for k, t in enumerate(board.provinces)}
        state, objs = tmp_path / "s.json", tmp_path / "objectives.json"
        state.write_text(ObservedState.from_summary(board, garrisons).to_json())
        argv = ["score", str(state), "--players", "red,blue,yellow,green", "--neutrals", "purple",
                "--ruleset", "tournament-2v2", "--objectives", str(objs)]
        objs.write_text(json.dumps({"red": {"territories": ["egitto"], "continents": ["africa"]}}))
        assert main(argv) == 0 and json.loads(capsys.readouterr().out)["red"]["total"] > 0
        objs.write_text(json.dumps(objectives))
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err, err
