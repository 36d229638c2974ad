"""Spawning, deleting and moving entities in the running simulation (issue 22, point 4).

The services follow ROS 2's simulation_interfaces (scripts/interfaces/simulation_interfaces):
`~/spawn_entity` (SpawnEntity), `~/delete_entity` (DeleteEntity) and `~/set_entity_state`
(SetEntityState). They are built on engine.MjSpec (seed 004, "editing models"): the node keeps
the spec of its current model; a spawn attaches the entity's MJCF or URDF to a copy of it, compiles
it with `recompile(m, d)` so that every joint, actuator and mocap body that already existed keeps
its state, and swaps the new model in between two steps. Sim time is not touched: /clock goes on
from where it was.

Entities: a spawned model is attached with its names prefixed by `<entity>/`; when it has one
top-level body, that body is named `<entity>` itself, so its tf frame and the entity share the
name. A top-level body with no joint gets a free joint: a spawned object is free, as in Gazebo;
a mocap body stays static (moved only by set_entity_state), MJCF's way of saying so.
Spawned bodies come after the model's own ones in the body, joint and dof order, so the addresses
the node's command maps, sensor layout and controllers hold stay valid; the outputs that list
bodies (/tf, scene markers) and joint_states are rebuilt on the same publishers.

set_entity_state moves a body with a free joint (its qpos and qvel) or a mocap body (mocap_pos and
mocap_quat): any such body of the model by its body name, or a spawned entity by its name.
Poses are in metres and unit quaternions, in `header.frame_id` (empty or the world frame: the
world; else a body of the model); twists are in the same frame (linear m/s, angular rad/s).
"""
from __future__ import annotations

import copy
import os
import re
import urllib.parse

import numpy as np
from simulation_interfaces.msg import Result
from simulation_interfaces.srv import DeleteEntity, SetEntityState, SpawnEntity

from mj_ros import commands as cmds
from mj_ros import frames as fr
from mj_ros import limits
from mj_ros.clock import to_stamp

_STREAM_RATES = {"_s_imu": "imu_rate", "_s_wrench": "wrench_rate", "_s_other": "sensor_rate",
                 "_s_odom": "odometry_rate"}
SEP = "/"          # entity name / element name of a spawned model's elements
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # a ROS name token: also a valid tf frame name


class SpawnError(Exception):
    """A request that cannot be carried out: `code` is the simulation_interfaces result code."""

    def __init__(self, code: int, text: str):
        super().__init__(text)
        self.code = code


# A spawn request is carried out between two steps: its work must stay bounded. A model that
# replicates to more elements than this is refused before it is expanded (mujoco compiles
# <replicate count="1000000"> for minutes; the simulation would stop meanwhile).
MAX_SPAWN_ELEMENTS = 10_000


def _check_size(text: bytes | str, what: str) -> None:
    """SpawnError when the MJCF/URDF ``text`` holds more than MAX_SPAWN_ELEMENTS elements once
    every <replicate count> is applied. Unparsable text passes: the reader names the error."""
    from lxml import etree
    try:
        root = etree.fromstring(text.encode() if isinstance(text, str) else text,
                                etree.XMLParser(resolve_entities=False, huge_tree=False))
    except (etree.XMLSyntaxError, ValueError):
        return
    total = 0
    stack = [(root, 1)]
    while stack:
        el, mult = stack.pop()
        if not isinstance(el.tag, str):
            continue
        total += mult
        if total > MAX_SPAWN_ELEMENTS:
            raise SpawnError(SpawnEntity.Response.RESOURCE_PARSE_ERROR,
                             f"{what}: more than {MAX_SPAWN_ELEMENTS} elements once replicated: "
                             "too large to spawn into a running simulation")
        if el.tag == "replicate":
            try:
                mult *= max(1, int(el.get("count", "1")))
            except ValueError:
                pass
        stack.extend((c, mult) for c in el)


def _read_resource(res, mj):
    """An MjSpec of the request's Resource: `uri` (a path, file:// or package:// URI) or, when
    empty, `resource_string` (MJCF or URDF text)."""
    if res.uri:
        uri = res.uri
        parsed = urllib.parse.urlparse(uri)
        if parsed.scheme == "file":
            uri = urllib.parse.unquote(parsed.path)
        elif parsed.scheme not in ("", "package"):
            raise SpawnError(SpawnEntity.Response.UNSUPPORTED_FORMAT,
                             f"unsupported URI scheme '{parsed.scheme}': give a file path, a "
                             "file:// or package:// URI, or the model text in resource_string")
        if parsed.scheme == "package":
            try:
                from ament_index_python.packages import get_package_share_directory
                uri = os.path.join(get_package_share_directory(parsed.netloc),
                                   parsed.path.lstrip("/"))
            except Exception as e:
                raise SpawnError(SpawnEntity.Response.MISSING_ASSETS,
                                 f"cannot resolve {res.uri}: {e}") from None
        if not os.path.isfile(uri):
            raise SpawnError(SpawnEntity.Response.MISSING_ASSETS, f"no such file: {uri}")
        if not uri.lower().endswith((".xml", ".mjcf", ".urdf")):
            raise SpawnError(SpawnEntity.Response.UNSUPPORTED_FORMAT,
                             f"{uri}: only MJCF (.xml) and URDF (.urdf) files can be spawned")
        try:
            with open(uri, "rb") as f:
                _check_size(f.read(), uri)
        except OSError as e:
            raise SpawnError(SpawnEntity.Response.MISSING_ASSETS, f"{uri}: {e.strerror}") \
                from None
        load, what = (lambda: mj.MjSpec.from_file(uri)), uri
    elif res.resource_string.strip():
        text = res.resource_string
        _check_size(text, "resource_string")
        load, what = (lambda: mj.MjSpec.from_string(text)), "resource_string"
    else:
        raise SpawnError(SpawnEntity.Response.NO_RESOURCE, "both uri and resource_string are empty")
    try:
        return load()
    except NotImplementedError as e:
        raise SpawnError(Result.FEATURE_UNSUPPORTED, f"{what}: the engine does not support {e}") \
            from None
    except Exception as e:  # the readers name file, line, element and attribute
        raise SpawnError(SpawnEntity.Response.RESOURCE_PARSE_ERROR, f"{what}: {e}") from None


def _unit_quat(q) -> np.ndarray:
    """(w, x, y, z) of a geometry_msgs Quaternion, normalised; SpawnError when it is not one."""
    w = np.array([q.w, q.x, q.y, q.z], float)
    n = float(np.linalg.norm(w))
    if not np.isfinite(n) or abs(n - 1.0) > 1e-3:
        raise ValueError(f"orientation is not a unit quaternion (norm {n:g})")
    return w / n


def _copy_spec(spec):
    """A copy of `spec` that recompile accepts with the model of `spec`'s last compile.

    MjSpec's deepcopy leaves the copy uncompiled (as mujoco's does), so recompile would refuse
    it; copying the record of the last compile with the same memo maps its joints, actuators and
    mocap bodies onto the copy's elements (a workaround of engine.mjspec's private field)."""
    memo: dict = {}
    out = copy.deepcopy(spec, memo)
    out._compiled = copy.deepcopy(spec._compiled, memo)
    return out


class EntityServices:
    """The three services on `node` (a SimNode); `mj` the engine module."""

    def __init__(self, node, mj):
        self.node, self.mj = node, mj
        self.spec = None                   # MjSpec of node.model, made at the first spawn
        self.entities: dict[str, list[str]] = {}  # entity -> its top-level bodies' names
        node.create_service(SpawnEntity, "~/spawn_entity", self._srv_spawn)
        node.create_service(DeleteEntity, "~/delete_entity", self._srv_delete)
        node.create_service(SetEntityState, "~/set_entity_state", self._srv_set_state)

    # -- the current model's spec -----------------------------------------------------------------
    def _current_spec(self):
        """The spec of node.model: read from the node's source the first time and compiled once,
        so that recompile can match its joints to node.model's (both come from the same file)."""
        if self.spec is None:
            src, mj = self.node._source, self.mj
            spec = mj.MjSpec.from_file(src.value) if src.kind == "file" else \
                mj.MjSpec.from_string(src.value)
            m0, m = spec.compile(), self.node.model
            if (m0.nq, m0.nv, m0.nbody, m0.nu, m0.nmocap) != (m.nq, m.nv, m.nbody, m.nu, m.nmocap):
                raise SpawnError(Result.OPERATION_FAILED,
                                 "the model's spec does not compile to the running model")
            self.spec = spec
        return self.spec

    def _swap(self, spec) -> None:
        """Compile `spec` (a changed copy of the current one) with the running state carried
        over, then put the new model in the node and rebuild what lists its elements."""
        node, mj = self.node, self.mj
        m, d = node.model, node.data
        try:
            m2, d2 = spec.recompile(m, d)
        except NotImplementedError as e:
            raise SpawnError(Result.FEATURE_UNSUPPORTED, f"the engine does not support {e}") \
                from None
        except Exception as e:
            raise SpawnError(Result.OPERATION_FAILED, f"the model does not compile: {e}") \
                from None
        if m2.nu != m.nu:  # the command map, ramp and controllers are sized by nu
            raise SpawnError(Result.FEATURE_UNSUPPORTED,
                             "spawning or deleting actuators in a running simulation")
        # what the node set on its model after loading it (timestep, disable flags)
        m2.opt.timestep = m.opt.timestep
        m2.opt.disableflags = m.opt.disableflags
        d2.qfrc_applied[:] = 0.0
        mj.mj_forward(m2, d2)
        self.spec = spec
        node.model, node.data = m2, d2
        n = min(m.nv, m2.nv)   # the model's own dofs come first and keep their addresses
        qfrc = np.zeros(m2.nv)
        qfrc[:n] = node._qfrc_cmd[:n]
        node._qfrc_cmd = qfrc
        rebuild_outputs(node, mj)

    # -- services ---------------------------------------------------------------------------------
    def _srv_spawn(self, request, response):
        self.node.count_event()
        try:
            response.entity_name = self._spawn(request)
            response.result.result = Result.OK
        except SpawnError as e:
            response.result.result = e.code
            response.result.error_message = str(e)
            self.node.get_logger().warning(f"spawn_entity: {e}")
        return response

    def _spawn(self, request) -> str:
        name = request.name
        if request.entity_namespace:
            raise SpawnError(SpawnEntity.Response.NAMESPACE_INVALID,
                             "entity_namespace: spawned entities have no ROS interfaces of their "
                             "own here; leave it empty")
        if not name:
            if not request.allow_renaming:
                raise SpawnError(SpawnEntity.Response.NAME_INVALID,
                                 "name is empty and allow_renaming is false")
            name = "entity"
        if not _NAME.match(name):
            raise SpawnError(SpawnEntity.Response.NAME_INVALID,
                             f"name '{name}': letters, digits and underscores, not starting with "
                             "a digit")
        if self._taken(name):
            if not request.allow_renaming:
                raise SpawnError(SpawnEntity.Response.NAME_NOT_UNIQUE,
                                 f"an entity or body named '{name}' exists")
            k = 1
            while self._taken(f"{name}_{k}"):
                k += 1
            name = f"{name}_{k}"
        pose = request.initial_pose
        try:
            pos, quat = self._to_world(pose.header.frame_id, pose.pose)
        except ValueError as e:
            raise SpawnError(SpawnEntity.Response.INVALID_POSE, f"initial_pose: {e}") from None
        child = _read_resource(request.entity_resource, self.mj)
        spec = _copy_spec(self._current_spec())
        before = {b.name for b in spec.worldbody.bodies}
        frame = spec.worldbody.add_frame(pos=list(pos), quat=list(quat))
        spec.attach(child, prefix=name + SEP, frame=frame)
        tops = [b for b in spec.worldbody.bodies if b.name not in before]
        if not tops:
            raise SpawnError(SpawnEntity.Response.RESOURCE_PARSE_ERROR,
                             "the model has no body to spawn")
        if len(tops) == 1:
            tops[0].name = name
        for b in tops:
            if not b.joints and not b.mocap:  # a spawned object is free (as in Gazebo)
                b.add_freejoint()
        self._swap(spec)
        self.entities[name] = [b.name for b in tops]
        self.node.get_logger().info(
            f"spawned '{name}' ({len(tops)} bodies) at {np.round(pos, 4).tolist()}")
        return name

    def _taken(self, name: str) -> bool:
        return name in self.entities or self.mj.mj_name2id(
            self.node.model, self.mj.mjtObj.mjOBJ_BODY, name) >= 0

    def _srv_delete(self, request, response):
        self.node.count_event()
        name = request.entity
        try:
            bodies = self.entities.get(name)
            if bodies is None:
                known = self.mj.mj_name2id(self.node.model, self.mj.mjtObj.mjOBJ_BODY, name) >= 0
                raise SpawnError(
                    Result.OPERATION_FAILED if known else Result.NOT_FOUND,
                    f"'{name}' is a body of the loaded model: only spawned entities can be deleted"
                    if known else f"no entity named '{name}'")
            spec = _copy_spec(self._current_spec())
            for b in bodies:
                spec.delete(spec.body(b))
            self._swap(spec)
            del self.entities[name]
            response.result.result = Result.OK
            self.node.get_logger().info(f"deleted '{name}'")
        except SpawnError as e:
            response.result.result = e.code
            response.result.error_message = str(e)
        return response

    def _srv_set_state(self, request, response):
        self.node.count_event()
        try:
            self._set_state(request.entity, request.state)
            response.result.result = Result.OK
        except SpawnError as e:
            response.result.result = e.code
            response.result.error_message = str(e)
        return response

    def _set_state(self, name: str, state) -> None:
        node, mj = self.node, self.mj
        m, d = node.model, node.data
        body = self.entities.get(name, [name])[0]
        b = mj.mj_name2id(m, mj.mjtObj.mjOBJ_BODY, body)
        if b < 0:
            raise SpawnError(Result.NOT_FOUND, f"no entity named '{name}'")
        try:
            pos, quat = self._to_world(state.header.frame_id, state.pose)
        except ValueError as e:
            raise SpawnError(Result.OPERATION_FAILED, f"state.pose: {e}") from None
        frame_q = self._frame_quat(state.header.frame_id)
        lin = fr.qrot(frame_q, [state.twist.linear.x, state.twist.linear.y, state.twist.linear.z])
        ang = fr.qrot(frame_q, [state.twist.angular.x, state.twist.angular.y,
                                state.twist.angular.z])
        mocap = int(m.body_mocapid[b])
        jadr = int(m.body_jntadr[b])
        if mocap >= 0:
            if np.any(lin) or np.any(ang):
                raise SpawnError(Result.OPERATION_FAILED,
                                 f"'{name}' is a mocap body: it takes a pose, not a twist")
            d.mocap_pos[mocap] = pos
            d.mocap_quat[mocap] = quat
        elif jadr >= 0 and int(m.jnt_type[jadr]) == int(mj.mjtJoint.mjJNT_FREE) \
                and int(m.body_parentid[b]) == 0:
            qa, va = int(m.jnt_qposadr[jadr]), int(m.jnt_dofadr[jadr])
            d.qpos[qa:qa + 3] = pos
            d.qpos[qa + 3:qa + 7] = quat
            d.qvel[va:va + 3] = lin                          # free joint: world linear velocity
            d.qvel[va + 3:va + 6] = fr.qrot(fr.qconj(quat), ang)  # and body-frame angular
        else:
            raise SpawnError(Result.OPERATION_FAILED,
                             f"'{name}' has no free joint and is not a mocap body")
        mj.mj_forward(m, d)
        node.publish_state()

    # -- frames -----------------------------------------------------------------------------------
    def _frame_pose(self, frame_id: str):
        """World position and quaternion of a reference frame: the world, or a body's frame."""
        node, mj = self.node, self.mj
        if frame_id in ("", "world", node._p("world_frame"),
                        node._p("frame_prefix") + node._p("world_frame")):
            return np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0])
        prefix = node._p("frame_prefix")
        body = frame_id[len(prefix):] if prefix and frame_id.startswith(prefix) else frame_id
        body = self.entities.get(body, [body])[0]
        b = mj.mj_name2id(node.model, mj.mjtObj.mjOBJ_BODY, body)
        if b < 0:
            raise ValueError(f"unknown reference frame '{frame_id}'")
        return np.array(node.data.xpos[b]), np.array(node.data.xquat[b])

    def _frame_quat(self, frame_id: str) -> np.ndarray:
        try:
            return self._frame_pose(frame_id)[1]
        except ValueError as e:
            raise SpawnError(Result.NOT_FOUND, str(e)) from None

    def _to_world(self, frame_id: str, pose):
        """`pose` (a geometry_msgs Pose in `frame_id`) as world position and quaternion."""
        p0, q0 = self._frame_pose(frame_id)
        p = np.array([pose.position.x, pose.position.y, pose.position.z], float)
        if not np.all(np.isfinite(p)):
            raise ValueError("position is not finite")
        return fr.compose(p0, q0, p, _unit_quat(pose.orientation))


def rebuild_outputs(node, mj) -> None:
    """After the node's model changed: rebuild the command map's joint list (joint_states), the
    frame table (/tf, /tf_static), scene markers and the state streams. Every publisher they ask
    for that exists already (same type and topic) is reused, so subscribers keep their
    connections and latched topics keep their last message until the new one replaces it."""
    m, p = node.model, node._p
    existing = {(pub.msg_type, pub.topic_name): pub for pub in node.publishers}
    create = node.create_publisher

    def reuse(msg_type, topic, *args, **kwargs):
        pub = existing.pop((msg_type, node.resolve_topic_name(topic)), None)
        return pub if pub is not None else create(msg_type, topic, *args, **kwargs)

    src = node._source
    urdf = fr.urdf_text_of(src.kind, src.value)
    cmap = cmds.CommandMap.from_model(m, mj)
    cmap.set_limits(limits.from_model(m, cmap.joints, urdf))
    node.cmap = cmap
    node.frames = fr.from_model(m, mj, p("world_frame"), urdf)
    stream = type(node._s_tf)
    node.create_publisher = reuse
    try:
        node._s_tf = stream(p("tf_rate"), node.timestep)
        if node._tf is not None:
            from mj_ros import tf as tfio
            node._tf = tfio.TfOutput(node, node.frames, p("frame_prefix"))
            node._tf.publish_static(*to_stamp(node.simclock.last))
        for s, rate in _STREAM_RATES.items():  # _make_outputs turns the empty ones off again
            setattr(node, s, stream(p(rate), node.timestep))
        if node._markers is not None:   # markers of geoms that are gone: RViz keeps them
            from mj_ros import markers as mk
            node._markers.pub.publish(mk.MarkerArray(markers=[mk.Marker(action=mk.Marker.DELETEALL,
                                                                        ns=mk.NAMESPACE)]))
        node._make_scene()
        node._make_outputs(node.clock_pub)
    finally:
        del node.create_publisher   # back to the class's method
    node.publish_state()
