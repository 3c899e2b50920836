"""Run a docs page's Python example the way a user would: the first
```python block after a heading, by /usr/bin/python3 from the source
tree, with PYTHONPATH at python/."""
import os
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def docs_block(page, heading=None):
    """The code of the first ```python block of docs/PAGE after `heading` (or the page's first)."""
    with open(os.path.join(ROOT, "docs", page), encoding="utf-8") as f:
        text = f.read()
    at = text.index(heading) if heading else 0
    start = text.index("```python\n", at) + len("```python\n")
    return text[start:text.index("```", start)]


def run_docs_block(test, page, heading, must_contain, timeout=300):
    """Run that block; the test fails with its stderr unless it exits 0."""
    code = docs_block(page, heading)
    test.assertIn(must_contain, code)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    out = subprocess.run(["/usr/bin/python3", "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=timeout)
    test.assertEqual(out.returncode, 0, out.stderr)
