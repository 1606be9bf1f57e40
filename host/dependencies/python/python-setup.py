"""Fills a Python project's .venv for dex, run by setup in the worktree, in the sandbox.

What it installs, from where, for which project shape: docs/real-repositories.md#python-projects.
In short: the project itself editable from the worktree when it is a package (never a release of it
from the index), its dependencies, and its test dependencies from wherever the project keeps them
(test extras, PEP 735 dependency groups, requirements files, tox, nox), then pytest when the
project uses pytest but names it nowhere. Then it checks that the installed project is the
worktree's editable install.

    python3 python-setup.py pip|uv|poetry|pdm [--update] [--dry-run]

--dry-run prints what it would run as JSON and runs nothing (the unit tests read it).
"""

import ast
import configparser
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

# Extras and groups that hold test dependencies, by their normalized names.
TEST_NAMES = {"test", "tests", "testing", "dev", "develop", "development"}
VENV_PYTHON = ".venv/bin/python"
REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[([^\]]*)\])?")
# A tox deps line that only applies to some environments (`py38: mock`).
TOX_FACTOR = re.compile(r"^[\w.,!-]+:\s")


def fail(message):
    print(f"error: {message}", flush=True)
    sys.exit(1)


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def load_toml(path):
    try:
        import tomllib
    except ModuleNotFoundError:
        fail(f"python3 {sys.version.split()[0]} cannot read {path}: it needs Python 3.11 or later (tomllib)")
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as err:
        fail(f"{path} is not valid TOML: {err}")


class Project:
    """What the worktree's manifests say: its name, whether it is a package, its extras and groups."""

    def __init__(self):
        self.pyproject = load_toml("pyproject.toml") if Path("pyproject.toml").exists() else {}
        self.setup_cfg = configparser.ConfigParser(interpolation=None)
        if Path("setup.cfg").exists():
            self.setup_cfg.read("setup.cfg")
        project = self.pyproject.get("project", {})
        poetry = self.pyproject.get("tool", {}).get("poetry", {})
        name = project.get("name") or poetry.get("name") or self.setup_cfg.get("metadata", "name", fallback=None)
        self.name = norm(name) if name else None
        self.is_package = self._is_package()
        if project:
            dynamic = "optional-dependencies" in project.get("dynamic", [])
            declared = None if dynamic else list(project.get("optional-dependencies", {}))
        elif poetry:
            declared = list(poetry.get("extras", {}))
        elif self.setup_cfg.has_section("options.extras_require"):
            declared = list(self.setup_cfg["options.extras_require"])
        else:
            declared = None if Path("setup.py").exists() else []
        self.declared_extras = declared
        self.groups = self.pyproject.get("dependency-groups", {})

    def _is_package(self):
        if Path("setup.py").exists() or self.setup_cfg.has_section("metadata"):
            return True
        if "build-system" not in self.pyproject:
            return False
        tool = self.pyproject.get("tool", {})
        if tool.get("uv", {}).get("package") is False or tool.get("poetry", {}).get("package-mode") is False:
            return False
        return True

    def self_extras(self, requirement):
        """The extras `requirement` asks of the project itself (`pkg[tests]`), or None when it names another package."""
        match = REQUIREMENT_NAME.match(requirement)
        if not match or not self.name or norm(match.group(1)) != self.name:
            return None
        return [e.strip() for e in (match.group(2) or "").split(",") if e.strip()]

    def group_requirements(self, name, seen=()):
        """The requirement strings of dependency group `name`, its `{include-group = ...}` resolved."""
        entries = next((v for k, v in self.groups.items() if norm(k) == norm(name)), None)
        if entries is None or norm(name) in seen:
            return []
        out = []
        for entry in entries:
            if isinstance(entry, str):
                out.append(entry)
            elif isinstance(entry, dict) and "include-group" in entry:
                out += self.group_requirements(entry["include-group"], (*seen, norm(name)))
        return out

    def extra_requirements(self, extra, seen=()):
        """The requirements of extra `extra` of [project], the project's own extras it names resolved."""
        extras = self.pyproject.get("project", {}).get("optional-dependencies", {})
        requirements = next((v for k, v in extras.items() if norm(k) == norm(extra)), [])
        if norm(extra) in seen:
            return []
        out = []
        for requirement in requirements:
            own = self.self_extras(requirement)
            out += [r for e in own for r in self.extra_requirements(e, (*seen, norm(extra)))] if own is not None else [requirement]
        return out

    def test_groups(self):
        return [g for g in self.groups if norm(g) in TEST_NAMES]

    def test_extras(self):
        if self.declared_extras is None:
            return ["dev", "test", "testing", "tests"]
        return [e for e in self.declared_extras if norm(e) in TEST_NAMES]


def tox_env():
    """The test environment of the project's tox config: its deps, extras and dependency groups."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        if Path("tox.ini").exists():
            parser.read("tox.ini")
        elif Path("setup.cfg").exists() and "[tox:tox]" in Path("setup.cfg").read_text(errors="replace"):
            parser.read("setup.cfg")
        elif Path("pyproject.toml").exists():
            tox = load_toml("pyproject.toml").get("tool", {}).get("tox", {})
            if "legacy_tox_ini" in tox:
                parser.read_string(tox["legacy_tox_ini"])
            elif "env_run_base" in tox:
                base = tox["env_run_base"]
                deps = [d for d in base.get("deps", []) if isinstance(d, str)]
                return deps, list(base.get("extras", [])), list(base.get("dependency_groups", []))
    except configparser.Error:
        return [], [], []
    if not parser.has_section("testenv"):
        return [], [], []
    section = parser["testenv"]
    # `-r{toxinidir}/test-requirements.txt`: tox's root is the worktree's.
    deps = [re.sub(r"\{(toxinidir|tox_root)\}/?", "./", l.strip()) for l in section.get("deps", "").splitlines()]
    deps = [l for l in deps if l and not l.startswith("#") and "{" not in l and not TOX_FACTOR.match(l)]
    listed = lambda key: [v.strip() for v in re.split(r"[,\s]+", section.get(key, "")) if v.strip()]
    return deps, listed("extras"), listed("dependency_groups")


def nox_installs():
    """What noxfile.py's test sessions install, when they name it in string literals (`session.install("pytest")`)."""
    try:
        tree = ast.parse(Path("noxfile.py").read_text())
    except (OSError, SyntaxError):
        return []
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or "test" not in fn.name:
            continue
        for call in ast.walk(fn):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "install":
                out += [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return out


def requirement_files():
    """Every top-level requirements*.txt, and the test/dev lists kept under other names."""
    names = sorted(p.name for p in Path(".").glob("requirements*.txt"))
    names += [n for n in ("test-requirements.txt", "dev-requirements.txt", "requirements_dev.txt") if Path(n).exists() and n not in names]
    names += sorted(str(p) for p in Path("requirements").glob("*.txt") if re.match(r"(test|dev)", p.name)) if Path("requirements").is_dir() else []
    return names


def test_folders():
    """Where owners keep tests: tests/ or test/ at the root, or inside a package (pkg/tests, src/pkg/tests)."""
    packages = [p.parent for p in (*Path(".").glob("*/__init__.py"), *Path("src").glob("*/__init__.py"))]
    return [d for d in (Path("tests"), Path("test"), *(pkg / t for pkg in packages for t in ("tests", "test"))) if d.is_dir()]


def uses_pytest(project):
    if any(Path(p).exists() for p in ("conftest.py", "pytest.ini", "tests/conftest.py", "test/conftest.py")):
        return True
    if "pytest" in project.pyproject.get("tool", {}) or project.setup_cfg.has_section("tool:pytest"):
        return True
    # tox's `[pytest]` or `commands = pytest …`, nox's session.run("pytest"): files that key the cache.
    if any(p.is_file() and re.search(r"(^|[\s\[\"'])(py\.test|pytest)\b", p.read_text(errors="replace"), re.M) for p in (Path("tox.ini"), Path("noxfile.py"))):
        return True
    return any(any(d.glob("**/test_*.py")) or any(d.glob("**/*_test.py")) for d in test_folders())


class Plan:
    """What to install: the project (with extras), requirement strings and requirement files, and why."""

    def __init__(self, project):
        self.project = project
        self.extras = []
        self.requirements = []
        self.files = []
        self.sources = []

    def add(self, requirement, source):
        extras = self.project.self_extras(requirement)
        if extras is not None:
            # The project naming itself (`dev = ["pkg[tests]"]`): its extras, of the worktree's project, never a release.
            self.add_extras(extras)
        elif requirement not in self.requirements:
            self.requirements.append(requirement)
        if source not in self.sources:
            self.sources.append(source)

    def add_extras(self, extras):
        if not self.project.is_package:
            # A project that is not installed: the extras it asks of itself are their requirements.
            for extra in extras:
                self.add_all(self.project.extra_requirements(extra), f"extra {extra}")
            return
        self.extras += [e for e in extras if e not in self.extras]

    def add_all(self, requirements, source):
        for requirement in requirements:
            self.add(requirement, source)

    def gather(self):
        project = self.project
        if not project.is_package:
            # Not a package (no build backend): nothing builds it, so its own dependencies are installed as listed.
            self.add_all(project.pyproject.get("project", {}).get("dependencies", []), "[project] dependencies")
        self.add_extras(project.test_extras())
        for group in project.test_groups():
            self.add_all(project.group_requirements(group), f"dependency group {group}")
        self.files = requirement_files()
        deps, extras, groups = tox_env()
        for dep in deps:
            if dep.startswith("-r"):
                path = os.path.normpath(dep[2:].strip())
                if Path(path).exists() and path not in self.files:
                    self.files.append(path)
            elif not dep.startswith("-") and dep != ".":
                self.add(dep, "tox deps")
        self.add_extras(extras)
        for group in groups:
            self.add_all(project.group_requirements(group), f"dependency group {group} (tox)")
        args = iter(nox_installs())
        for arg in args:
            if arg in ("-r", "--requirement"):
                path = next(args, "")
                if Path(path).exists() and path not in self.files:
                    self.files.append(path)
            elif arg.startswith(".["):
                self.add_extras([e.strip() for e in arg[2:-1].split(",")])
            elif not arg.startswith("-") and arg != "." and REQUIREMENT_NAME.match(arg):
                self.add(arg, "noxfile")
        return self

    def project_arg(self):
        return f".[{','.join(self.extras)}]" if self.extras else "."


