"""How the engine's numba kernels are compiled, linked and cached.

Every pipeline kernel is declared with `kernel` (a compiled function of its own) or `inline`
(copied into each kernel that calls it). This module decides how a kernel's machine code reaches
its callers and when a cached kernel is still valid.

Linking. Numba links the whole code of every function a kernel calls into the kernel's own
library, then optimises and emits the result again: each of the ~470 kernels carried the machine
code of its entire call tree, and the stage compositions re-optimised the whole engine five
times (measured: 257 s of a 554 s cold compile in those re-optimisations). Here a kernel whose
optimised body is larger than `SEPARATE_MIN_INSTRUCTIONS` is a *separate* compilation unit:
callers declare it and call it by symbol; LLVM compiles its body once, in its own library.
Smaller kernels are linked and inlined into their callers as numba does (a call would cost more
than their body).

Caching. A kernel's cache entry stores, beside numba's compile result, what its machine code was
built from:
- ``files``: the source files compiled into it: its own file, the files of the
  linked kernels and `inline` functions it calls, and the files of the constants it reads
  (field indices, enums), each with a SHA-256 of its bytes;
- ``calls``: the separate kernels it calls by symbol, with their argument and return types.
An entry loads only while every file is unchanged and every separate callee still has the
recorded symbol and return type; the callees are loaded (or compiled) first, so the symbols
resolve. Editing a file recompiles the kernels of that file and those that inlined its code,
not the kernels that only call into it.

Symbols: numba names each compiled function with a per-process counter (the "uid" in the
mangled name), so a kernel compiled in another process order would get another symbol. Kernels
here get uid 0 (or 1, 2... for a later kernel of the same module and name): a kernel is compiled
once per argument types per process (the dispatcher keeps its overloads), and the mangled name
already holds module, name and argument types.
"""
from __future__ import annotations

import ast
import contextlib
import fcntl
import hashlib
import importlib
import os
import sys
import time
import types as pytypes
from pathlib import Path

import llvmlite.binding as ll
from numba import njit, types
from numba.core import bytecode, codegen, sigutils, targetconfig
from numba.core.caching import CompileResultCacheImpl, FunctionCache
from numba.core.dispatcher import Dispatcher
from numba.core.registry import CPUDispatcher

# The decorator options of every pipeline kernel. `_nrt=False` compiles without numba's reference
# counting: each array view a kernel takes or passes on otherwise costs an atomic incref/decref
# call (measured: a third of a pendulum's step time), and kernels here never allocate, so nothing
# needs counting. A kernel that allocated would fail to compile under this flag.
# error_model="numpy": a float division by zero gives inf/nan as in MuJoCo's C (numba's default
# raises ZeroDivisionError, and checks every division for it).
# no_cfunc_wrapper: numba otherwise adds a C-callable wrapper to every function (for passing
# jitted functions as first-class values, which the engine never does).
KERNEL = dict(nogil=True, _nrt=False, error_model="numpy", no_cfunc_wrapper=True)

# A kernel whose optimised body (its own code and the linked kernels inlined into it) has more
# LLVM instructions than this is compiled separately and called by symbol; below it, it is
# inlined where LLVM sees fit. 400 keeps the math helpers, field loops and small geometric
# routines inline (about 350 of the engine's 470 kernels) and makes the stages, colliders and
# solvers separate; with it bench/step.py's ratios are at or above those of the build that
# linked everything.
SEPARATE_MIN_INSTRUCTIONS = int(os.environ.get("MJ_ROS_SEPARATE_MIN", "400"))

ENGINE = Path(__file__).resolve().parent
_CACHE_LAYOUT = "k2"    # bump when what an entry holds changes


def cache_dir():
    """Where compiled kernels are kept: $MJ_ROS_NUMBA_CACHE or ~/.cache/mj_ros/numba, one
    folder per cache layout (entries are validated one by one, see the module docstring)."""
    base = os.environ.get("MJ_ROS_NUMBA_CACHE",
                          os.path.join(os.path.expanduser("~"), ".cache", "mj_ros", "numba"))
    return os.path.join(base, _CACHE_LAYOUT)


# ------------------------------------------------------------------------------------------
# What a kernel's code is built from
# ------------------------------------------------------------------------------------------

_DIGESTS: dict[str, str] = {}


def file_digest(path):
    """SHA-256 of the source file ``path``, read once per process."""
    d = _DIGESTS.get(path)
    if d is None:
        try:
            d = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            d = "missing"
        _DIGESTS[path] = d
    return d


_ROOTS = {ENGINE}       # source trees whose files kernels are built from (see `kernel`)
_TRACKED: dict = {}     # (path, number of roots) -> `_tracked(path)`


def _tracked(path):
    """The resolved ``path`` of a source file under a tracked tree (the engine's, or the
    package of a kernel defined elsewhere), as a string; None for other files (the standard
    library, installed packages) and for None."""
    key = (path, len(_ROOTS))
    if key not in _TRACKED:
        try:
            p = Path(path).resolve()
        except (OSError, TypeError):
            _TRACKED[key] = None
        else:
            _TRACKED[key] = str(p) if any(r in p.parents for r in _ROOTS) else None
    return _TRACKED[key]


_IMPORTS: dict[str, dict] = {}


def _imports_of(module):
    """{name: module name it was imported from} for the ``from X import name`` statements of a
    tracked module (relative imports resolved); empty for other modules."""
    name = module.__name__
    table = _IMPORTS.get(name)
    if table is not None:
        return table
    table = {}
    src = getattr(module, "__file__", None)
    if src and _tracked(src) is not None:
        pkg = name if src.endswith("__init__.py") else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(Path(src).read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")
                    base = base[:len(base) - node.level + 1]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module
                for alias in node.names:
                    table[alias.asname or alias.name] = origin
    _IMPORTS[name] = table
    return table


def _code_names(code):
    """Global names a code object and its nested code objects refer to."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, pytypes.CodeType):
            names |= _code_names(c)
    return names


_STATIC: dict[object, frozenset] = {}


def static_files(py_func):
    """Engine files whose code or constants compile into ``py_func`` whatever it calls at run
    time: its own file, the files of the constants it reads (followed to the module that
    defines them), and, recursively, of the `inline` functions it calls. Calls to `kernel`s are left out: the linker records those (`_library_files`)."""
    got = _STATIC.get(py_func)
    if got is not None:
        return got
    _STATIC[py_func] = frozenset()      # recursion guard
    files = set()
    own = _tracked(py_func.__code__.co_filename)
    if own:
        files.add(own)
    module = sys.modules.get(py_func.__module__)
    imports = _imports_of(module) if module is not None else {}
    glb = py_func.__globals__
    for name in _code_names(py_func.__code__):
        if name not in glb:
            continue
        value = glb[name]
        if isinstance(value, KernelDispatcher):
            continue
        if isinstance(value, Dispatcher):
            files |= static_files(value.py_func)
            continue
        if isinstance(value, pytypes.ModuleType):
            path = _tracked(getattr(value, "__file__", None))
            if path:
                files.add(path)
            continue
        origin, seen = imports.get(name), set()
        while origin and origin not in seen:
            seen.add(origin)
            mod = sys.modules.get(origin) or importlib.import_module(origin)
            path = _tracked(getattr(mod, "__file__", None))
            if path is None:
                break
            files.add(path)
            origin = _imports_of(mod).get(name)
    got = frozenset(files)
    _STATIC[py_func] = got
    return got


# ------------------------------------------------------------------------------------------
# Linking: separate kernels and what each library holds
# ------------------------------------------------------------------------------------------

_LIB_FILES: dict[object, frozenset] = {}     # code library of a kernel -> files compiled into it
_LIB_NAMES: dict[object, str] = {}           # code library of a kernel -> the kernel's name
_LIB_LINKED: dict[object, set] = {}          # code library -> names of the kernels linked in
_SEPARATE: dict[str, tuple] = {}             # mangled symbol -> (dispatcher, argument types)


def _library_files(library, seen):
    """Files of every kernel library linked into ``library`` (recursively)."""
    out = set()
    for lib in library._linking_libraries:
        if lib in seen:
            continue
        seen.add(lib)
        known = _LIB_FILES.get(lib)
        if known is not None:
            out |= known
        else:
            out |= _library_files(lib, seen)
    return out


def _library_kernels(library, seen):
    """Names of the kernels linked into ``library`` (recursively)."""
    out = set()
    for lib in library._linking_libraries:
        if lib not in seen:
            seen.add(lib)
            name = _LIB_NAMES.get(lib)
            if name is not None:
                out.add(name)
                out |= _LIB_LINKED.get(lib, set())
            else:
                out |= _library_kernels(lib, seen)
    return out


def _instruction_count(library, symbol):
    """LLVM instructions in a library's function (lines of its IR text: one FFI call, where
    walking the instructions costs one per instruction)."""
    text = str(library._final_module.get_function(symbol))
    return text.count("\n  ")


def _meta_of_compiled(disp, cres):
    """The cache metadata of a kernel just compiled in this process."""
    lib = cres.library
    files = set(static_files(disp.py_func)) | _library_files(lib, set())
    calls = []
    for fn in lib._final_module.functions:
        if fn.is_declaration and fn.name in _SEPARATE:
            callee, args = _SEPARATE[fn.name]
            ccres = callee.overloads[args]
            calls.append((callee.py_func.__module__, callee.py_func.__qualname__, args,
                          fn.name, str(ccres.signature.return_type)))
    return dict(
        separate=_instruction_count(lib, cres.fndesc.mangled_name) > SEPARATE_MIN_INSTRUCTIONS,
        files={f: file_digest(f) for f in sorted(files)},
        calls=calls, linked=sorted(_library_kernels(lib, set())))


def _resolve(module, qualname):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _load_callees(meta):
    """Load (or compile) the separate kernels an entry calls; False if one no longer has the
    recorded symbol or return type (the entry must then be recompiled)."""
    for module, qualname, args, symbol, restype in meta["calls"]:
        callee = _resolve(module, qualname)
        if not isinstance(callee, KernelDispatcher):
            return False
        callee.compile(args)
        ccres = callee.overloads.get(args)
        if ccres is None or ccres.fndesc.mangled_name != symbol \
                or str(ccres.signature.return_type) != restype:
            return False
    return True


class KernelCacheImpl(CompileResultCacheImpl):
    """numba's compile-result cache, with the metadata of the module docstring."""

    def reduce(self, cres):
        return (_META.pop(cres.library), super().reduce(cres))

    def rebuild(self, target_context, payload):
        try:
            meta, inner = payload
            if any(file_digest(f) != h for f, h in meta["files"].items()):
                return None
            if not _load_callees(meta):
                return None
        except Exception:       # an entry of another layout, or a callee that cannot load
            return None
        cres = super().rebuild(target_context, inner)
        _LOADED_META[cres.library] = meta
        return cres


class KernelCache(FunctionCache):
    _impl_class = KernelCacheImpl


_META: dict[object, dict] = {}          # library -> metadata, until its entry is saved
_LOADED_META: dict[object, dict] = {}   # library loaded from the cache -> its metadata


# ------------------------------------------------------------------------------------------
# The dispatcher
# ------------------------------------------------------------------------------------------

def _widen(t):
    """The argument type a kernel is compiled for when another kernel passes ``t``: constants
    lose their literal value and narrow integers become int64."""
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.bitwidth < 64:
        return types.int64
    return t


class KernelDispatcher(CPUDispatcher):
    """A numba CPU dispatcher for the engine's kernels (see the module docstring)."""

    def get_call_template(self, args, kws):
        # Why widen: numba specialises a kernel called from another kernel on the exact
        # argument types, literal constants included (``f(M, D, 0)`` and ``f(M, D, k)`` are two
        # compilations), and an int32 read from a model array differs from an int64 loop index.
        # Each specialisation is a compilation of its own (measured: 716 specialisations of 438
        # functions before this). The caller casts; LLVM folds the constants where it inlines.
        return super().get_call_template(tuple(_widen(a) for a in args),
                                         {k: _widen(v) for k, v in kws.items()})

    def compile(self, sig):
        args, _ = sigutils.normalize_signature(sig)
        if tuple(args) in self.overloads:
            return super().compile(sig)
        # One process compiles a kernel at a time (the warm-up's workers, pytest's): the others
        # wait, then load it from the cache. Kernels lock their callees while holding their own
        # lock, and calls form no cycle, so this cannot deadlock.
        with _compile_lock(self):
            entry = super().compile(sig)
        if on_ready is not None:
            on_ready(kernel_name(self))
        return entry

    def add_overload(self, cres):
        super().add_overload(cres)
        lib = cres.library
        meta = _LOADED_META.pop(lib, None)
        loaded = meta is not None
        if meta is None:
            meta = _meta_of_compiled(self, cres)
            _META[lib] = meta
        _LIB_FILES[lib] = frozenset(meta["files"])
        _LIB_NAMES[lib] = kernel_name(self)
        _LIB_LINKED[lib] = set(meta.get("linked", ()))
        if on_ready is not None and loaded:
            for name in _LIB_LINKED[lib]:
                on_ready(name)
        if meta["separate"]:
            # callers declare the symbol instead of linking this library
            for _sig, impl in self.targetctx._defns[cres.entry_point].versions:
                impl.libs = ()
            _SEPARATE[cres.fndesc.mangled_name] = (self, tuple(cres.signature.args))


# Called with a kernel's name (`kernel_name`) each time one of its overloads becomes ready in
# this process, compiled or loaded, and for the kernels linked into a loaded one: the warm-up's
# progress report.
on_ready = None


LOCK_WAIT = [0.0]      # seconds this process waited for kernels other processes compiled


@contextlib.contextmanager
def _compile_lock(disp):
    path = os.path.join(cache_dir(), "locks")
    try:
        os.makedirs(path, exist_ok=True)
        f = open(os.path.join(path, f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"),
                 "a")
    except OSError:         # a read-only cache: nothing to share, compile unlocked
        yield
        return
    with f:
        t = time.perf_counter()
        fcntl.flock(f, fcntl.LOCK_EX)
        LOCK_WAIT[0] += time.perf_counter() - t
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


# ------------------------------------------------------------------------------------------
# Overheads of numba's compiler that the engine does not need
# ------------------------------------------------------------------------------------------

def _drop_llvm_lock_events():
    """numba reports an event around every call into LLVM's C API (for its compile-time
    statistics, which the engine never reads): a tenth of a cold compile's Python time and of
    loading kernels from the cache (measured: 700 000 calls while compiling the engine)."""
    lock = getattr(getattr(ll.ffi, "lib", None), "_lock", None)
    for acq, rel in list(getattr(lock, "_cblist", ())):
        if "_initialize_llvm_lock_event" in getattr(acq, "__qualname__", ""):
            ll.ffi.unregister_lock_callback(acq, rel)


def _optimize_functions(self, ll_module):
    """numba's per-function optimisation with one pass manager for the module (numba builds a
    pass builder and manager for every function: 18 000 of them for the engine)."""
    ll_module.data_layout = self._codegen._data_layout
    fpm, pb = self._codegen._function_pass_manager()
    for func in ll_module.functions:
        fpm.run(func, pb)


def _config_values(self):
    """numba's TargetConfig.values (all options with their values), from a per-class dict of
    defaults instead of a property call per option: typing hashes and compares the compile
    flags at every call it resolves (measured: 900 000 calls while compiling the engine)."""
    cls = type(self)
    defaults = cls.__dict__.get("_mj_defaults")
    if defaults is None:
        defaults = {k: opt.default for k, opt in cls.options.items()}
        cls._mj_defaults = defaults
    out = dict(defaults)
    out.update(self._values)
    return out


_drop_llvm_lock_events()
codegen.CPUCodeLibrary._optimize_functions = _optimize_functions
targetconfig.TargetConfig.values = _config_values


_KERNEL_UID: dict = {}      # a kernel's code object -> the uid its symbols carry
_DEFINED: dict = {}         # (module, qualname) -> the last uid given
KERNELS: list = []          # every kernel defined, in definition order


def kernel_name(disp):
    """``module.qualname`` of a kernel's dispatcher."""
    return f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"


def sources_digest():
    """SHA-256 over the engine's Python sources (paths and bytes): the warm-up's stamp that
    nothing changed since the cache was last filled."""
    h = hashlib.sha256()
    for p in sorted(ENGINE.rglob("*.py")):
        h.update(str(p.relative_to(ENGINE)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:24]


def _checkout():
    """A short key of this engine's location: stamps of other checkouts sharing the cache
    are theirs."""
    return hashlib.sha256(str(ENGINE).encode()).hexdigest()[:8]


def _warm_stamp():
    return os.path.join(cache_dir(), f"warm-{_checkout()}-{sources_digest()}")


def is_warm():
    """Whether a warm-up finished with these exact sources and this cache."""
    return os.path.exists(_warm_stamp())


def mark_warm():
    """Stamp the cache warm for these sources, and drop this checkout's stale entries."""
    try:
        os.makedirs(cache_dir(), exist_ok=True)
        for old in Path(cache_dir()).glob(f"warm-{_checkout()}-*"):
            old.unlink(missing_ok=True)
        Path(_warm_stamp()).touch()
        _prune_moved()
    except OSError:
        pass


def _prune_moved():
    """Delete the cache files of kernels at lines where they no longer are. numba names a
    kernel's files ``module.name-line.pyXY`` (.nbi index, .N.nbc data): an edit above a kernel
    moves it and leaves its old files behind for good."""
    current = {}                    # cache folder -> {module.name: its current file prefix}
    for disp in KERNELS:
        cache = disp._cache
        if isinstance(cache, KernelCache):
            prefix = cache._cache_file._index_name[:-len(".nbi")]
            name = prefix.rsplit("-", 1)[0]
            current.setdefault(cache._cache_path, {})[name] = prefix
    for folder, names in current.items():
        for f in os.listdir(folder):
            if not f.endswith((".nbi", ".nbc")) or "-" not in f:
                continue
            name, rest = f.rsplit("-", 1)
            prefix = names.get(name)
            if prefix is not None and not f.startswith(prefix + "."):
                os.unlink(os.path.join(folder, f))


_from_function = bytecode.FunctionIdentity.from_function.__func__


def _identity(cls, pyfunc):
    self = _from_function(cls, pyfunc)
    uid = _KERNEL_UID.get(getattr(pyfunc, "__code__", None))
    if uid is not None:
        self.unique_id = uid
        self.unique_name = f"{self.func_qualname}${uid}"
    return self


bytecode.FunctionIdentity.from_function = classmethod(_identity)


def kernel(fn):
    """A pipeline kernel: compiled once per argument shape however other kernels call it,
    separate or linked by its size, cached with what it was built from (module docstring)."""
    # uid 0, or the count of earlier kernels of the same module and name (a module that
    # redefines a name, a reloaded module): their symbols must not collide
    key = (fn.__module__, fn.__qualname__)
    _KERNEL_UID[fn.__code__] = _DEFINED[key] = _DEFINED.get(key, -1) + 1
    module = sys.modules.get(fn.__module__)
    if module is not None and getattr(module, "__file__", None):
        # a kernel outside the engine (a test's, a plugin's): track its package's files too
        top = sys.modules.get(fn.__module__.split(".")[0])
        src = Path(getattr(top, "__file__", None) or module.__file__).resolve().parent
        if ENGINE not in src.parents and src != ENGINE:
            _ROOTS.add(src)
    disp = KernelDispatcher(py_func=fn, locals={},
                            targetoptions=dict(nopython=True, boundscheck=None, **KERNEL))
    try:
        disp._cache = KernelCache(disp.py_func)
    except RuntimeError:    # no source file to key a cache on (code typed at a prompt)
        pass
    KERNELS.append(disp)
    return disp


def inline(fn):
    """A function whose code numba copies into each kernel that calls it (inline="always")
    instead of compiling it on its own. For the compositions of whole pipeline stages in
    `engine.forward.run`, so that the many small entry points (the checks, the integrators,
    step1/step2) are one compiled function rather than one each; and for helpers that return
    a view of a field (numba without reference counting returns only arrays that were passed
    in, so such a helper cannot be a function of its own)."""
    return njit(inline="always", cache=True, **KERNEL)(fn)
