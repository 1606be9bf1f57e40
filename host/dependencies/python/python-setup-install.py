def run(argv, env=None, dry=None, check=True):
    """Runs `argv` (or, dry, only records it); a failure ends setup with its exit code unless `check` is false."""
    if dry is not None:
        dry.append(argv)
        return 0
    print("$ " + shlex.join(argv), flush=True)
    code = subprocess.call(argv, env={**os.environ, **(env or {})})
    if code < 0:
        # Killed by a signal (uv aborting): say which, and exit as a shell would (128 + the signal), not 256 - it.
        print(f"{os.path.basename(argv[0])} was killed by {signal.Signals(-code).name}", flush=True)
        code = 128 - code
    if code != 0 and check:
        sys.exit(code)
    return code


def owner_constraints(project):
    """The owner's venv versions (DEX_PYTHON_CONSTRAINTS, from dex) as a pip constraints file, the project's own name left out; None without."""
    lines = [l for l in os.environ.get("DEX_PYTHON_CONSTRAINTS", "").splitlines() if l.strip() and project.self_extras(l) is None]
    if not lines:
        return None
    path = "/tmp/dex-owner-constraints.txt"
    Path(path).write_text("\n".join(lines) + "\n")
    return path


# Run with the venv's interpreter: the installed distribution of the project (by name, or any
# editable one at the worktree when the name is unknown), and where it came from.
CHECK = r"""
import importlib.metadata as m, json, pathlib, re, site, sys
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
want, root = sys.argv[1], pathlib.Path.cwd().resolve()
found = []
# Only what is installed in the venv: an editable src layout also puts the worktree's own src/*.egg-info on sys.path.
for d in m.distributions(path=site.getsitepackages()):
    name = norm(d.metadata["Name"] or "")
    try:
        url = json.loads(d.read_text("direct_url.json") or "{}")
    except ValueError:
        url = {}
    local = url.get("url", "").startswith("file://") and pathlib.Path(url["url"][7:]).resolve() == root
    editable = local and url.get("dir_info", {}).get("editable", False)
    if name == want or (not want and editable):
        found.append((name, d.version, editable, url.get("url", "the package index")))
print(json.dumps(found))
"""


def egg_infos():
    return {str(p) for pattern in ("*.egg-info", "*/*.egg-info") for p in Path(".").glob(pattern) if p.is_dir()}


def check_editable(project, dry, before=frozenset()):
    """Fails unless the venv's copy of the project is the worktree's own, installed editable; then
    removes the `*.egg-info` setuptools wrote into the worktree while building it (the venv's
    dist-info is the installed record), so the worktree holds only the project's own files."""
    if dry is not None or not project.is_package:
        return
    out = subprocess.run([VENV_PYTHON, "-c", CHECK, project.name or ""], capture_output=True, text=True)
    found = json.loads(out.stdout or "[]") if out.returncode == 0 else []
    label = project.name or "the project"
    if not found:
        fail(f"{label} is not installed in .venv after setup: its tests would not import the worktree's code")
    for name, version, editable, url in found:
        if not editable:
            fail(f".venv has {name} {version} from {url}, not the worktree's editable install: its tests would test that release")
    print(f"dex: {found[0][0]} {found[0][1]} is installed editable from the worktree", flush=True)
    for leftover in sorted(egg_infos() - before):
        shutil.rmtree(leftover, ignore_errors=True)


def ensure_pytest(project, install, dry):
    """Installs pytest when the project uses it but its requirements did not bring it."""
    if not uses_pytest(project):
        return
    if dry is None and subprocess.call([VENV_PYTHON, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('pytest') is None)"], stderr=subprocess.DEVNULL) == 0:
        return
    if dry is None:
        print("dex: the project uses pytest but names it nowhere; installing pytest", flush=True)
    run(install + ["pytest"], dry=dry)


def describe(plan):
    parts = []
    if plan.project.is_package:
        parts.append(f"-e {plan.project_arg()} (the worktree, editable)")
    parts += [f"-r {f}" for f in plan.files]
    if plan.requirements:
        parts.append(f"{len(plan.requirements)} requirements from {', '.join(plan.sources)}")
    return "dex: installing " + ("; ".join(parts) or "nothing but a venv")


def make_venv(path, dry=None):
    """`python3 -m venv path`, copied from a bare venv this python3 made once in the downloads cache
    (DEX_VENV_SEEDS; docs/real-repositories.md#a-new-venv): venv with its own pip install (ensurepip)
    took 3.6 s a venv, the copy 1.15 s, most of it the kernel's copying. Made where a script's #! line would grow too long for the
    kernel (127 bytes; pip writes a shell trampoline then) or with no seed folder, as venv makes it."""
    if dry is not None:
        dry.append(["python3", "-m", "venv", path])
        return
    seeds, target = os.environ.get("DEX_VENV_SEEDS"), os.path.abspath(path)
    if not seeds or len(f"#!{target}/bin/python3.99") > 127 or re.search(r"\s", target):
        run(["python3", "-m", "venv", path])
        return
    key = hashlib.sha256(f"{sys.version}|{os.path.realpath(sys.executable)}|1".encode()).hexdigest()[:16]
    seed = Path(seeds) / key
    if not (seed / ".dex-made-at").exists():
        # Random, not the pid alone: each sandbox has a pid namespace of its own, so two setups at once
        # can have the same pid, and would make one venv together in one folder (ensurepip then fails).
        partial = Path(seeds) / f".{key}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        Path(seeds).mkdir(parents=True, exist_ok=True)
        run(["python3", "-m", "venv", str(partial)])
        (partial / ".dex-made-at").write_text(str(partial))
        try:
            os.rename(partial, seed)
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)  # another setup made it first
    made_at = (seed / ".dex-made-at").read_text()
    shutil.copytree(seed, target, symlinks=True)
    os.remove(os.path.join(target, ".dex-made-at"))
    # What names the folder a venv was made in: its scripts (#! lines, activate) and pyvenv.cfg.
    bin_dir = os.path.join(target, "bin")
    for name in [os.path.join(bin_dir, n) for n in os.listdir(bin_dir)] + [os.path.join(target, "pyvenv.cfg")]:
        if os.path.islink(name) or not os.path.isfile(name):
            continue
        with open(name, "rb") as f:
            data = f.read()
        if made_at.encode() in data:
            with open(name, "wb") as f:
                f.write(data.replace(made_at.encode(), target.encode()))


def pip_mode(project, dry):
    plan = Plan(project).gather()
    before = egg_infos()
    make_venv(".venv", dry)
    install = [VENV_PYTHON, "-m", "pip", "install", "-q"]
    args = [a for f in plan.files for a in ("-r", f)] + plan.requirements
    if project.is_package:
        # One resolve with the worktree's project in it: a requirement naming the project is satisfied by it, not by the index.
        # --use-pep517: Debian's pip 23.0 would install a setup.py-only project by `setup.py develop` (an egg-link, no record of where it came from).
        args = ["--use-pep517", "-e", plan.project_arg()] + args
    if dry is None:
        print(describe(plan), flush=True)
    constraints = owner_constraints(project) if args else None
    if constraints:
        # The versions the owner's tests pass with, where the project allows them; where it does not, the owner's venv is stale.
        print(f"dex: preferring the versions of the owner's venv ({len(Path(constraints).read_text().splitlines())} packages)", flush=True)
        if run(install + ["-c", constraints] + args, dry=dry, check=False) != 0:
            print("dex: the owner's venv versions do not fit the project's requirements; installing without them", flush=True)
            constraints = None
    if args and not constraints and run(install + args, dry=dry, check=not (project.is_package and plan.requirements)) != 0:
        # tox's order: its deps first, then the project over them. pyflakes's tox pins flake8, whose own pin
        # of pyflakes excludes the worktree's version: one resolve refuses what tox installs with a warning.
        print("dex: the requirements conflict with the project in one resolve; installing them first and the project over them, as tox does", flush=True)
        run(install + [a for f in plan.files for a in ("-r", f)] + plan.requirements, dry=dry)
        run(install + ["--use-pep517", "-e", plan.project_arg()], dry=dry)
    check_editable(project, dry, before)
    ensure_pytest(project, install, dry)


def uv_mode(project, update, dry):
    uv = os.environ.get("DEX_UV", "uv")
    argv = [uv, "sync"] + ([] if update else ["--frozen"])
    # uv installs a project's extras whether or not it builds it (a virtual project's too), and refuses one not declared.
    for extra in project.test_extras() if project.declared_extras is not None else []:
        argv += ["--extra", extra]
    for group in project.test_groups():
        if norm(group) != "dev":
            argv += ["--group", group]
    before = egg_infos()
    run(argv, dry=dry)
    check_editable(project, dry, before)
    # Outside the lock, like a person's `uv pip install pytest`: a later `uv sync` would take it out again.
    ensure_pytest(project, [uv, "pip", "install", "--python", VENV_PYTHON], dry)


def locked_requirement(package):
    """A lock entry as pip's requirement: the locked version, or the git/url/path it came from, with its marker."""
    source = package.get("source", {})
    kind, url = source.get("type"), source.get("url", "")
    if kind == "git":
        requirement = f"{package['name']} @ git+{url}@{source.get('resolved_reference') or source.get('reference', '')}"
    elif kind in ("url", "file", "directory"):
        requirement = url if kind != "url" else f"{package['name']} @ {url}"
    else:
        requirement = f"{package['name']}=={package['version']}"
    marker = package.get("marker") or package.get("markers")
    return requirement + (f" ; {marker}" if isinstance(marker, str) and marker else "")


def install_locked(project, requirements, dry):
    """Every locked package as locked, then the project editable, with no second resolve: the lock is the whole truth."""
    before = egg_infos()
    make_venv(".venv", dry)
    install = [VENV_PYTHON, "-m", "pip", "install", "-q"]
    if dry is None:
        print(f"dex: installing {len(requirements)} locked packages" + ("; -e . (the worktree, editable)" if project.is_package else ""), flush=True)
    if requirements:
        run(install + ["--no-deps"] + requirements, dry=dry)
    if project.is_package:
        run(install + ["--no-deps", "--use-pep517", "-e", "."], dry=dry)
    check_editable(project, dry, before)
    ensure_pytest(project, install, dry)


def poetry_mode(project, dry):
    """poetry.lock read into pip, as `poetry install` would install it: the main group, every group not
    optional and the optional test groups, the test extras' packages. Not poetry itself: poetry 2.x
    asks PyPI's JSON API for each locked version (/pypi/<name>/<version>/json), which a mirror or a
    proxy serving only the simple index does not answer."""
    lock = load_toml("poetry.lock")
    groups = project.pyproject.get("tool", {}).get("poetry", {}).get("group", {})
    wanted = {"main"} | {norm(g) for g, spec in groups.items() if not spec.get("optional") or norm(g) in TEST_NAMES}
    extras = {norm(p) for e, names in lock.get("extras", {}).items() if norm(e) in TEST_NAMES for p in names}
    chosen = []
    for package in lock.get("package", []):
        in_groups = {norm(g) for g in package.get("groups", [])} & wanted if "groups" in package else package.get("category", "main") in ("main", "dev")
        # An optional package belongs to an extra: only a test extra brings it.
        if norm(package["name"]) != project.name and in_groups and (not package.get("optional") or norm(package["name"]) in extras):
            chosen.append(locked_requirement(package))
    install_locked(project, chosen, dry)


def pdm_mode(project, dry):
    """pdm.lock read into pip, as `pdm install` would install it: every locked group."""
    lock = load_toml("pdm.lock")
    install_locked(project, [locked_requirement(p) for p in lock.get("package", []) if norm(p["name"]) != project.name], dry)


def main():
    args = sys.argv[1:]
    mode = args[0] if args else "pip"
    if mode == "venv":  # a tool's venv (uv's), outside the project
        make_venv(args[1])
        return
    dry = [] if "--dry-run" in args else None
    project = Project()
    if mode == "uv":
        uv_mode(project, "--update" in args, dry)
    elif mode == "poetry":
        poetry_mode(project, dry)
    elif mode == "pdm":
        pdm_mode(project, dry)
    else:
        pip_mode(project, dry)
    if dry is not None:
        print(json.dumps({"name": project.name, "package": project.is_package, "commands": dry}))


if __name__ == "__main__":
    main()
