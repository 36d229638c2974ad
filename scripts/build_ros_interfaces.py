#!/usr/bin/env python3
"""Build a ROS 2 interface package (msg/srv/action) into the running Python's prefix.

PyPI ships rclpy and the common message packages as wheels, but not every interface package the
node needs (tf2_msgs, control_msgs). This script generates C and Python code for such a package
with the `rosidl` generator wheels, compiles it with gcc/g++ and installs it in the venv prefix the
way an ament install tree lays it out, so `import tf2_msgs.msg` (or `control_msgs.action`) works
and the type interoperates with a real ROS 2 installation (same type hash).

    VENV/bin/python scripts/build_ros_interfaces.py PKG SRC_DIR [DEPENDENCY_PKG ...]

SRC_DIR holds msg/*.msg and optionally srv/*.srv and action/*.action. A stamp (hash of the
definitions, the dependencies and this script) makes a repeated call a no-op.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import io
import logging
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import tempfile

PREFIX = pathlib.Path(sys.prefix)
LIBDIR = PREFIX / "lib"
SHARE = PREFIX / "share"
SITE = pathlib.Path(sysconfig.get_paths()["purelib"])
# Packages every generated interface may refer to implicitly (stamps, service events).
ALWAYS_DEPENDS = ("builtin_interfaces", "service_msgs")
# An action's generated messages (SendGoal, GetResult, FeedbackMessage) refer to these.
ACTION_DEPENDS = ("action_msgs", "unique_identifier_msgs")
SUBDIRS = {"msg": ".msg", "srv": ".srv", "action": ".action"}
# The three typesupports rclpy can load; fastrtps_c is the one Fast DDS uses on the wire.
TYPESUPPORTS = ("rosidl_typesupport_c", "rosidl_typesupport_fastrtps_c",
                "rosidl_typesupport_introspection_c")


def interface_files(src: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for sub, suffix in SUBDIRS.items() for p in (src / sub).glob("*")
                  if p.suffix == suffix)


def stamp_of(pkg: str, src: pathlib.Path, deps: list[str]) -> str:
    h = hashlib.sha256()
    h.update(pathlib.Path(__file__).read_bytes())
    h.update(("\0".join([pkg, *deps, sys.version])).encode())
    for p in interface_files(src):
        h.update(p.relative_to(src).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:20]


def _quiet_rosidl_generate():
    """Return rosidl's generate(), tolerant of the wheels' duplicated entry points.

    The rosidl wheels register each generator both through an egg-info and a dist-info, and the
    strict lookup in rosidl_cli refuses duplicates; a non-strict lookup picks one of the identical
    entries.
    """
    import rosidl_cli.entry_points as entry_points

    strict_lookup = entry_points.get_entry_points

    def lookup(group_name, *, specs=None, strict=False):
        return strict_lookup(group_name, specs=specs, strict=False)

    entry_points.get_entry_points = lookup
    logging.getLogger("rosidl_cli.entry_points").setLevel(logging.ERROR)
    from rosidl_cli.command.generate.api import generate
    return generate


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        sys.stderr.write(" ".join(cmd) + "\n" + proc.stdout + proc.stderr)
        raise SystemExit(f"build_ros_interfaces: compiling {cmd[-1]} failed")


class Builder:
    def __init__(self, pkg: str, src: pathlib.Path, deps: list[str], work: pathlib.Path):
        self.pkg, self.src, self.deps, self.work = pkg, src, deps, work
        self.gen = work / "gen"
        self.obj = work / "obj"
        self.obj.mkdir(parents=True)

    # -- steps ------------------------------------------------------------------------------------
    def generate(self) -> None:
        generate = _quiet_rosidl_generate()
        files = [f"{self.src}:{p.relative_to(self.src).as_posix()}"
                 for p in interface_files(self.src)]
        with contextlib.redirect_stdout(io.StringIO()):  # one line per file and generator
            generate(package_name=self.pkg, interface_files=files,
                     include_paths=[str(SHARE / d) for d in self.deps], output_path=self.gen,
                     types=["c", "py"], typesupports=["c", "fastrtps_c", "introspection_c"])
        # one include tree for all generated headers: include/<pkg>/msg/...
        for kind in ("c", "fastrtps_c", "introspection_c"):
            for header in (self.gen / kind).rglob("*.h*"):
                dst = self.work / "include" / self.pkg / header.relative_to(self.gen / kind)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(header, dst)

    def compile(self, sources, tag: str) -> list[str]:
        import numpy
        include = [self.work / "include", PREFIX / "include",
                   *sorted(p for p in (PREFIX / "include").iterdir() if p.is_dir()),
                   sysconfig.get_paths()["include"], numpy.get_include()]
        flags = ["-O2", "-fPIC", "-w", *(f"-I{p}" for p in include)]

        def one(source: pathlib.Path) -> str:
            cpp = source.suffix == ".cpp"
            out = self.obj / (tag + "__" + source.relative_to(self.gen).as_posix()
                              .replace("/", "__") + ".o")
            _run(["g++" if cpp else "gcc", "-std=c++17" if cpp else "-std=c11", *flags,
                  "-c", str(source), "-o", str(out)])
            return str(out)

        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            return list(pool.map(one, sources))

    def link(self, objects, out: pathlib.Path, libs: list[str], rpath: str) -> None:
        _run(["g++", "-shared", "-o", str(out), *objects, f"-L{LIBDIR}", f"-Wl,-rpath,{rpath}",
              *libs])

    def dep_libs(self, kind: str) -> list[str]:
        return [f"-l{d}__{kind}" for d in self.deps if (LIBDIR / f"lib{d}__{kind}.so").exists()]

    def build_libraries(self) -> None:
        p, g = self.pkg, self.gen
        own_c = f"-l{p}__rosidl_generator_c"
        plan = {
            "rosidl_generator_c": (
                sorted((g / "c").rglob("detail/*.c")),
                self.dep_libs("rosidl_generator_c") + ["-lrosidl_runtime_c", "-lrcutils"]),
            "rosidl_typesupport_c": (
                sorted((g / "c").rglob("*.cpp")),
                [own_c, *self.dep_libs("rosidl_typesupport_c"), "-lrosidl_typesupport_c",
                 "-lrosidl_runtime_c", "-lrcpputils", "-lrcutils"]),
            "rosidl_typesupport_fastrtps_c": (
                sorted((g / "fastrtps_c").rglob("*.cpp")),
                [own_c, *self.dep_libs("rosidl_typesupport_fastrtps_c"),
                 *self.dep_libs("rosidl_generator_c"), "-lrosidl_typesupport_fastrtps_c",
                 "-lrosidl_typesupport_fastrtps_cpp", "-lfastcdr", "-lrmw",
                 "-lrosidl_runtime_c", "-lrcutils"]),
            "rosidl_typesupport_introspection_c": (
                sorted((g / "introspection_c").rglob("*.c")),
                [own_c, *self.dep_libs("rosidl_typesupport_introspection_c"),
                 "-lrosidl_typesupport_introspection_c", "-lrosidl_runtime_c", "-lrcutils"]),
            "rosidl_generator_py": (
                sorted((g / "py").rglob("_*_s.c")),
                [own_c, f"-l{p}__rosidl_typesupport_c", *self.dep_libs("rosidl_generator_py"),
                 *self.dep_libs("rosidl_generator_c"), *self.dep_libs("rosidl_typesupport_c"),
                 "-lrosidl_runtime_c", "-lrcutils"]),
        }
        for kind, (sources, libs) in plan.items():  # order matters: later ones link earlier ones
            self.link(self.compile(sources, kind), LIBDIR / f"lib{p}__{kind}.so", libs, "$ORIGIN")

    def install_python(self) -> None:
        p = self.pkg
        dst = SITE / p
        if dst.exists():
            shutil.rmtree(dst)
        dst.mkdir()
        (dst / "__init__.py").write_text("")
        for f in (self.gen / "py").rglob("*.py"):
            target = dst / f.relative_to(self.gen / "py")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        for ts in TYPESUPPORTS:
            objs = self.compile([self.gen / "py" / f"_{p}_s.ep.{ts}.c"], "py_" + ts)
            self.link(objs, dst / f"{p}_s__{ts}{suffix}",
                      [f"-l{p}__rosidl_generator_py", f"-l{p}__{ts}", f"-l{p}__rosidl_generator_c",
                       "-lrosidl_runtime_c", "-lrcutils"], "$ORIGIN/../../..")

    def install_share(self) -> None:
        p = self.pkg
        for sub in SUBDIRS:
            extra = list((self.gen / "c" / "tmp" / sub).glob("*.idl")) + \
                list((self.gen / "c" / sub).glob("*.json"))
            for f in list((self.src / sub).glob("*")) + extra:
                if f.suffix in (*SUBDIRS.values(), ".idl", ".json"):
                    (SHARE / p / sub).mkdir(parents=True, exist_ok=True)
                    shutil.copy2(f, SHARE / p / sub / f.name)
        headers = PREFIX / "include" / p / p
        if headers.exists():
            shutil.rmtree(headers)
        shutil.copytree(self.work / "include" / p, headers)
        index = SHARE / "ament_index" / "resource_index"
        (index / "packages").mkdir(parents=True, exist_ok=True)
        (index / "packages" / p).write_text("")
        (index / "rosidl_interfaces").mkdir(parents=True, exist_ok=True)
        (index / "rosidl_interfaces" / p).write_text("".join(
            f.relative_to(self.src).as_posix() + "\n" for f in interface_files(self.src)))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    pkg, src = argv[0], pathlib.Path(argv[1]).resolve()
    files = interface_files(src)
    if not files:
        raise SystemExit(f"build_ros_interfaces: no msg/srv/action files under {src}")
    actions = ACTION_DEPENDS if any(p.suffix == ".action" for p in files) else ()
    deps = list(dict.fromkeys([*argv[2:], *ALWAYS_DEPENDS, *actions]))
    stamp_file = SHARE / pkg / ".mj_ros_interface_stamp"
    stamp = stamp_of(pkg, src, deps)
    if stamp_file.is_file() and stamp_file.read_text().strip() == stamp:
        print(f"{pkg}: up to date")
        return 0
    os.environ.setdefault("AMENT_PREFIX_PATH", str(PREFIX))
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"mj_ros_rosidl_{pkg}_"))
    try:
        builder = Builder(pkg, src, deps, work)
        builder.generate()
        builder.build_libraries()
        builder.install_python()
        builder.install_share()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    stamp_file.write_text(stamp + "\n")
    print(f"{pkg}: built into {PREFIX}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
