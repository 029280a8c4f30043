"""code/README.md names every module of the package, with one line each."""

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "code" / "embedding_course"


def test_readme_lists_every_module_once():
    readme = (PACKAGE.parent / "README.md").read_text()
    listed = re.findall(r"^\| `([\w.]+)` \|", readme, flags=re.M)
    assert len(listed) == len(set(listed))
    modules = [path for path in PACKAGE.glob("*.py")] + list((PACKAGE / "figures").glob("*.py"))
    expected = {path.stem if path.parent == PACKAGE else f"figures.{path.stem}"
                for path in modules if path.stem != "__init__"}
    expected |= {"live", "exercises"}  # one module per lesson each, named in their line
    assert set(listed) == expected
