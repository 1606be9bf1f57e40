/**
 * Real projects without `verify:` in a dex.config.yaml, for the tests of verify without
 * configuration (docs/real-repositories.md#verify-without-configuration): dex must find each
 * one's test suite itself. Each has one planted one-line bug.
 */
import { commitProject, type RealProject } from './real-projects';

/** A Python project whose tests are in `tests/` and whose requirements declare pytest (installed into a venv by setup). */
export function pytestProject(): RealProject {
  const repo = commitProject('ledger', {
    'requirements.txt': 'pytest==8.3.3\n',
    '.gitignore': '.venv/\n__pycache__/\n.pytest_cache/\n',
    'ledger.py': 'def total(amounts):\n    return sum(amounts) - 1\n',
    'tests/test_ledger.py': 'from ledger import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n',
  });
  return { repo, fix: { path: 'ledger.py', old_string: 'sum(amounts) - 1', new_string: 'sum(amounts)' } };
}

/** A Python project with tests and no requirements: setup makes no venv, and the sandbox's python3 has no pytest. */
export function pythonWithoutPytest(): string {
  return commitProject('bare', {
    'bare.py': 'def twice(n):\n    return n * 2\n',
    'tests/test_bare.py': 'from bare import twice\n\n\ndef test_twice():\n    assert twice(2) == 4\n',
  });
}
