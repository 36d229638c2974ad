"""The engine's exception types: one clear error per bad input, naming where it is."""


class XMLError(ValueError):
    """A model file is malformed or invalid: names file, line, element and attribute."""

    def __init__(self, message, file=None, line=None, element=None, attribute=None):
        self.file, self.line, self.element, self.attribute = file, line, element, attribute
        where = []
        if file:
            where.append(f"{file}" + (f":{line}" if line else ""))
        elif line:
            where.append(f"line {line}")
        if element:
            where.append(f"element <{element}>")
        if attribute:
            where.append(f"attribute '{attribute}'")
        self.message = message
        super().__init__((", ".join(where) + ": " if where else "") + message)


class CompileError(XMLError):
    """The model parsed but cannot be compiled (bad reference, invalid inertia, ...)."""


class ArenaFullError(RuntimeError):
    """The contacts or constraint rows of a step exceed what the MjData was allocated for
    (seed 001 "Memory allocation": raise <size memory>)."""


class ArgumentError(TypeError, ValueError):
    """An argument of a public mj_* function has the wrong type, dtype, shape or size, or is
    None where an array is needed; the message names the function and the argument.

    Why both bases: the official bindings raise TypeError for these (pybind11's argument
    conversion: "jacp should be of shape (3, nv)"), and a ValueError is what the Python
    convention expects for a bad value; code written for either catches it."""


class FatalError(ValueError):
    """What MuJoCo reports through mju_error (``mujoco.FatalError``): a call the engine cannot
    carry out as asked (e.g. a finite-difference derivative with the RK4 integrator). A
    ValueError too, so code written for either catches it."""


class UnexpectedError(RuntimeError):
    """An internal inconsistency of the engine (``mujoco.UnexpectedError``): a bug to report,
    never a consequence of the caller's input."""
