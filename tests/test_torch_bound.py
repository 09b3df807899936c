"""pyproject's torch bound is the lowest release the torch matrix tests (noxfile.py's
TORCH_LOWER_BOUND, the `torch-lowest` session that ./run_tests.sh runs): raising one
without the other would claim a release nothing tests."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(name):
    with open(os.path.join(ROOT, name)) as handle:
        return handle.read()


def test_pyproject_torch_bound_is_the_tested_lower_bound():
    bound = re.search(r'^TORCH_LOWER_BOUND = "([0-9.]+)"', _read("noxfile.py"), re.M).group(1)
    extra = re.search(r'^torch = \["torch>=([0-9.]+)"', _read("pyproject.toml"), re.M).group(1)
    assert extra == bound
    releases = re.search(r"^TORCH_RELEASES = \[(.*?)\]", _read("noxfile.py"), re.M | re.S).group(1)
    assert '"%s"' % bound in releases
