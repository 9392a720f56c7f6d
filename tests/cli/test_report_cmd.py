from __future__ import annotations

from pathlib import Path

from tipc.cli.main import main


def test_report_command_prints_the_index_path(single_run, tmp_path, capsys):
    assert main(["report", str(single_run), "--out", str(tmp_path / "out"), "--no-history"]) == 1  # its badge: failed
    printed = Path(capsys.readouterr().out.strip())
    assert printed.name == "index.html" and printed.is_file()
    assert printed.parent.parent == tmp_path / "out" / "PP-OCRv3_mobile_rec" / "lite_train_lite_infer"


def test_report_command_compares_with_a_given_dir(single_run, tmp_path, capsys):
    main(["report", str(single_run), "--out", str(tmp_path / "a")])
    first = Path(capsys.readouterr().out.strip())
    assert (
        main(
            [
                "report",
                str(single_run),
                "--out",
                str(tmp_path / "b"),
                "--compare",
                str(first.parent),
                "--threshold",
                "5",
            ]
        )
        == 1  # a run with a failed stage: the page's badge and the exit status agree
    )
    html = Path(capsys.readouterr().out.strip()).read_text()
    assert 'id="comparison"' in html and "moved more than 5%" in html


def test_report_command_bad_dir_exits_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]) == 2
    assert "run.json: missing" in capsys.readouterr().err
