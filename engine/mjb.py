"""MuJoCo's binary model format, MJB, of version 4.0.0: mj_saveModel and MjModel.from_binary_path
(seed 004, "loading, compiling, saving": a compiled model saved and loaded without its XML).

The layout, measured on files mujoco 4.0.0 writes (mj_saveModel) and following the order of its
field table (include/mujoco/mjxmacro.h of 4.0.0):

- a header of 5 int32: 54321 (the MJB id), sizeof(mjtNum) = 8, the number of sizes (98),
  mjVERSION_HEADER (4000000) and the number of arrays (489);
- the 98 sizes (int64), in mjModel's order (SIZES);
- the mjOption struct as its memory: 31 float64, 13 int32, 4 bytes of padding (304 bytes);
- the mjVisual struct as its memory (float32 and int32 fields, engine.visual.VISUAL_TABLE's
  order: 632 bytes), then mjStatistic (7 float64) and mjModel's three flags, one byte each:
  flg_gravcomp (a body has gravity compensation), flg_surfacevel, flg_adhesion (a geom or pair
  has those: features this engine does not build);
- every array of ARRAYS in that order, rows x cols items of its type, unpadded: ``d`` float64,
  ``i`` int32, ``f`` float32, ``b`` uint8 (mjtByte / mjtBool), ``c`` char, ``z`` int64.

Loading keeps the arrays this engine has (engine._layout.MODEL_FIELDS; every one of them is in
the file) and the names. Saving needs all 489 arrays: those of the arena, those the compiler
keeps beside it (the bounding-volume hierarchies, engine/compiler/bvh.py; the name hash table,
engine/names.py; mesh normals and texture coordinates, engine/compiler/mesh_normals.py; plugin
fields); the ones this engine does not build yet (flex/skin data ...) make
mj_saveModel raise NotImplementedError naming them, unless their size is zero.
"""
from __future__ import annotations

import os

import numpy as np

from ._layout import MODEL_FIELDS, MODEL_SIZES
from .visual import VISUAL_TABLE

MJB_ID = 54321
MJB_VERSION = 4000000   # mjVERSION_HEADER of mujoco 4.0.0
SIZES = """
    nq nv nu nactuator nout na nbody nbvh nbvhstatic nbvhdynamic noct njnt ntree nM nB nC nD
    ngeom nsite ncam nlight nflex nflexnode nflexvert nflexedge nflexelem nflexelemdata
    nflexstiffness nflexbending nefm0dof nefm0L nefmCvert nflexelemedge nflexshelldata
    nflextexcoord nJfe nmesh nmeshvert nmeshnormal nmeshtexcoord nmeshface nmeshgraph nmeshpoly
    nmeshpolyvert nmeshpolymap nskin nskinvert nskintexvert nskinface nskinbone nskinbonevert
    nhfield nhfielddata ntex ntexdata nmat npair nexclude neq ntendon nJten nwrap nsensor
    nnumeric nnumericdata ntext ntextdata ntuple ntupledata nkey nmocap nplugin npluginattr
    nuser_body nuser_jnt nuser_geom nuser_site nuser_cam nuser_tendon nuser_actuator
    nuser_sensor nnames npaths nplastic nnames_map nJmom ngravcomp nemax njmax nconmax
    npolygonmax nmeshdegmax nuserdata nsensordata npluginstate nhistory narena nbuffer
""".split()

# name type rows cols (cols: a number or a size name); mjxmacro.h's MJMODEL_POINTERS order
_TABLE = """
qpos0 d nq 1                              qpos_spring d nq 1                        body_parentid i nbody 1
body_rootid i nbody 1                     body_weldid i nbody 1                     body_mocapid i nbody 1
body_jntnum i nbody 1                     body_jntadr i nbody 1                     body_dofnum i nbody 1
body_dofadr i nbody 1                     body_treeid i nbody 1                     body_geomnum i nbody 1
body_geomadr i nbody 1                    body_simple b nbody 1                     body_sameframe b nbody 1
body_pos d nbody 3                        body_quat d nbody 4                       body_ipos d nbody 3
body_iquat d nbody 4                      body_mass d nbody 1                       body_subtreemass d nbody 1
body_inertia d nbody 3                    body_invweight0 d nbody 2                 body_gravcomp d nbody 1
body_margin d nbody 1                     body_user d nbody nuser_body              body_plugin i nbody 1
body_contype i nbody 1                    body_conaffinity i nbody 1                body_bvhadr i nbody 1
body_bvhnum i nbody 1                     bvh_depth i nbvh 1                        bvh_child i nbvh 2
bvh_nodeid i nbvh 1                       bvh_aabb d nbvhstatic 6                   oct_depth i noct 1
oct_child i noct 8                        oct_aabb d noct 6                         oct_coeff d noct 8
jnt_type i njnt 1                         jnt_qposadr i njnt 1                      jnt_dofadr i njnt 1
jnt_bodyid i njnt 1                       jnt_actuatorid i njnt 1                   jnt_group i njnt 1
jnt_plasticadr i njnt 1                   jnt_limited b njnt 1                      jnt_actfrclimited b njnt 1
jnt_actgravcomp b njnt 1                  jnt_solref d njnt 2                       jnt_solimp d njnt 5
jnt_pos d njnt 3                          jnt_axis d njnt 3                         jnt_stiffness d njnt 1
jnt_stiffnesspoly d njnt 2                jnt_springyield d njnt 1                  jnt_range d njnt 2
jnt_actfrcrange d njnt 2                  jnt_margin d njnt 1                       jnt_user d njnt nuser_jnt
dof_bodyid i nv 1                         dof_jntid i nv 1                          dof_parentid i nv 1
dof_treeid i nv 1                         dof_Madr i nv 1                           dof_simplenum i nv 1
dof_solref d nv 2                         dof_solimp d nv 5                         dof_frictionloss d nv 1
dof_armature d nv 1                       dof_damping d nv 1                        dof_dampingpoly d nv 2
dof_invweight0 d nv 1                     dof_M0 d nv 1                             dof_length d nv 1
tree_bodyadr i ntree 1                    tree_bodynum i ntree 1                    tree_dofadr i ntree 1
tree_dofnum i ntree 1                     tree_sleep_policy i ntree 1               geom_type i ngeom 1
geom_contype i ngeom 1                    geom_conaffinity i ngeom 1                geom_condim i ngeom 1
geom_bodyid i ngeom 1                     geom_dataid i ngeom 1                     geom_matid i ngeom 1
geom_group i ngeom 1                      geom_priority i ngeom 1                   geom_plugin i ngeom 1
geom_sameframe b ngeom 1                  geom_castshadow b ngeom 1                 geom_solmix d ngeom 1
geom_solref d ngeom 2                     geom_solimp d ngeom 5                     geom_size d ngeom 3
geom_aabb d ngeom 6                       geom_rbound d ngeom 1                     geom_pos d ngeom 3
geom_quat d ngeom 4                       geom_friction d ngeom 3                   geom_margin d ngeom 1
geom_gap d ngeom 1                        geom_surfacevel d ngeom 6                 geom_adhesion d ngeom 1
geom_fluid d ngeom 12                     geom_user d ngeom nuser_geom              geom_rgba f ngeom 4
site_type i nsite 1                       site_bodyid i nsite 1                     site_dataid i nsite 1
site_matid i nsite 1                      site_group i nsite 1                      site_sameframe b nsite 1
site_size d nsite 3                       site_pos d nsite 3                        site_quat d nsite 4
site_user d nsite nuser_site              site_rgba f nsite 4                       cam_mode i ncam 1
cam_bodyid i ncam 1                       cam_targetbodyid i ncam 1                 cam_pos d ncam 3
cam_quat d ncam 4                         cam_poscom0 d ncam 3                      cam_pos0 d ncam 3
cam_mat0 d ncam 9                         cam_projection i ncam 1                   cam_fovy d ncam 1
cam_ipd d ncam 1                          cam_resolution i ncam 2                   cam_output i ncam 1
cam_sensorsize f ncam 2                   cam_intrinsic f ncam 4                    cam_user d ncam nuser_cam
light_mode i nlight 1                     light_bodyid i nlight 1                   light_targetbodyid i nlight 1
light_type i nlight 1                     light_texid i nlight 1                    light_castshadow b nlight 1
light_bulbradius f nlight 1               light_intensity f nlight 1                light_range f nlight 1
light_active b nlight 1                   light_pos d nlight 3                      light_dir d nlight 3
light_poscom0 d nlight 3                  light_pos0 d nlight 3                     light_dir0 d nlight 3
light_attenuation f nlight 3              light_cutoff f nlight 1                   light_softness f nlight 1
light_exponent f nlight 1                 light_ambient f nlight 3                  light_diffuse f nlight 3
light_specular f nlight 3                 flex_contype i nflex 1                    flex_conaffinity i nflex 1
flex_condim i nflex 1                     flex_priority i nflex 1                   flex_solmix d nflex 1
flex_solref d nflex 2                     flex_solimp d nflex 5                     flex_friction d nflex 3
flex_margin d nflex 1                     flex_gap d nflex 1                        flex_selfcollide i nflex 1
flex_activelayers i nflex 1               flex_passive i nflex 1                    flex_dim i nflex 1
flex_matid i nflexelem 1                  flex_group i nflex 1                      flex_interp i nflex 1
flex_cellnum i nflex 3                    flex_nodeadr i nflex 1                    flex_nodenum i nflex 1
flex_vertadr i nflex 1                    flex_vertnum i nflex 1                    flex_edgeadr i nflex 1
flex_edgenum i nflex 1                    flex_elemadr i nflex 1                    flex_elemnum i nflex 1
flex_elemdataadr i nflex 1                flex_stiffnessadr i nflex 1               flex_elemedgeadr i nflex 1
flex_bendingadr i nflex 1                 flex_plasticadr i nflex 1                 flex_plasticmode i nflex 1
flex_shellnum i nflex 1                   flex_shelldataadr i nflex 1               flex_texcoordadr i nflex 1
flex_nodebodyid i nflexnode 1             flex_vertbodyid i nflexvert 1             flex_vertcell i nflexvert 1
flex_edge i nflexedge 2                   flex_edgeflap i nflexedge 2               flex_elem i nflexelemdata 1
flex_elemtexcoord i nflexelemdata 1       flex_elemedge i nflexelemedge 1           flex_elemlayer i nflexelem 1
flex_shell i nflexshelldata 1             flex_vert d nflexvert 3                   flex_vert0 d nflexvert 3
flex_node d nflexnode 3                   flex_node0 d nflexnode 3                  flexedge_length0 d nflexedge 1
flexedge_invweight0 d nflexedge 1         flex_radius d nflex 1                     flex_size d nflex 3
flex_stiffness d nflexstiffness 1         flex_bending d nflexbending 1             efm0_dofid i nefm0dof 1
efm0_L_rownnz i nefm0dof 1                efm0_L_rowadr i nefm0dof 1                efm0_L_colind i nefm0L 1
efm0_L d nefm0L 1                         efmC_perm i nefmCvert 1                   flex_damping d nflex 1
flex_yield d nflex 2                      flex_edgestiffness d nflex 1              flex_edgedamping d nflex 1
flex_edgeequality i nflex 1               flex_rigid b nflex 1                      flexedge_rigid b nflexedge 1
flex_centered b nflex 1                   flex_flatskin b nflex 1                   flex_bvhadr i nflex 1
flex_bvhnum i nflex 1                     flexedge_J_rownnz i nflexedge 1           flexedge_J_rowadr i nflexedge 1
flexedge_J_colind i nJfe 1                flex_rgba f nflex 4                       flex_texcoord f nflextexcoord 2
mesh_vertadr i nmesh 1                    mesh_vertnum i nmesh 1                    mesh_faceadr i nmesh 1
mesh_facenum i nmesh 1                    mesh_bvhadr i nmesh 1                     mesh_bvhnum i nmesh 1
mesh_octadr i nmesh 1                     mesh_octnum i nmesh 1                     mesh_normaladr i nmesh 1
mesh_normalnum i nmesh 1                  mesh_texcoordadr i nmesh 1                mesh_texcoordnum i nmesh 1
mesh_graphadr i nmesh 1                   mesh_extrema i nmesh 27                   mesh_vert f nmeshvert 3
mesh_normal f nmeshnormal 3               mesh_texcoord f nmeshtexcoord 2           mesh_face i nmeshface 3
mesh_facenormal i nmeshface 3             mesh_facetexcoord i nmeshface 3           mesh_graph i nmeshgraph 1
mesh_scale d nmesh 3                      mesh_pos d nmesh 3                        mesh_quat d nmesh 4
mesh_pathadr i nmesh 1                    mesh_polynum i nmesh 1                    mesh_polyadr i nmesh 1
mesh_polynormal d nmeshpoly 3             mesh_polyvertadr i nmeshpoly 1            mesh_polyvertnum i nmeshpoly 1
mesh_polyvert i nmeshpolyvert 1           mesh_polymapadr i nmeshvert 1             mesh_polymapnum i nmeshvert 1
mesh_polymap i nmeshpolymap 1             skin_matid i nskin 1                      skin_group i nskin 1
skin_rgba f nskin 4                       skin_inflate f nskin 1                    skin_vertadr i nskin 1
skin_vertnum i nskin 1                    skin_texcoordadr i nskin 1                skin_faceadr i nskin 1
skin_facenum i nskin 1                    skin_boneadr i nskin 1                    skin_bonenum i nskin 1
skin_vert f nskinvert 3                   skin_texcoord f nskintexvert 2            skin_face i nskinface 3
skin_bonevertadr i nskinbone 1            skin_bonevertnum i nskinbone 1            skin_bonebindpos f nskinbone 3
skin_bonebindquat f nskinbone 4           skin_bonebodyid i nskinbone 1             skin_bonevertid i nskinbonevert 1
skin_bonevertweight f nskinbonevert 1     skin_pathadr i nskin 1                    hfield_size d nhfield 4
hfield_nrow i nhfield 1                   hfield_ncol i nhfield 1                   hfield_adr i nhfield 1
hfield_data f nhfielddata 1               hfield_pathadr i nhfield 1                tex_type i ntex 1
tex_colorspace i ntex 1                   tex_height i ntex 1                       tex_width i ntex 1
tex_nchannel i ntex 1                     tex_adr z ntex 1                          tex_data b ntexdata 1
tex_pathadr i ntex 1                      tex_contenttypeadr i ntex 1               mat_texid i nmat 10
mat_texuniform b nmat 1                   mat_texrepeat f nmat 2                    mat_emission f nmat 1
mat_specular f nmat 1                     mat_shininess f nmat 1                    mat_reflectance f nmat 1
mat_metallic f nmat 1                     mat_roughness f nmat 1                    mat_rgba f nmat 4
pair_dim i npair 1                        pair_geom1 i npair 1                      pair_geom2 i npair 1
pair_signature i npair 1                  pair_solref d npair 2                     pair_solreffriction d npair 2
pair_solimp d npair 5                     pair_margin d npair 1                     pair_gap d npair 1
pair_adhesion d npair 1                   pair_friction d npair 5                   exclude_signature i nexclude 1
eq_type i neq 1                           eq_obj1id i neq 1                         eq_obj2id i neq 1
eq_objtype i neq 1                        eq_active0 b neq 1                        eq_solref d neq 2
eq_solimp d neq 5                         eq_data d neq 12                          tendon_type i ntendon 1
tendon_adr i ntendon 1                    tendon_num i ntendon 1                    tendon_matid i ntendon 1
tendon_actuatorid i ntendon 1             tendon_group i ntendon 1                  tendon_plasticadr i ntendon 1
tendon_treenum i ntendon 1                tendon_treeid i ntendon 2                 ten_J_rownnz i ntendon 1
ten_J_rowadr i ntendon 1                  ten_J_colind i nJten 1                    tendon_limited b ntendon 1
tendon_actfrclimited b ntendon 1          tendon_width d ntendon 1                  tendon_solref_lim d ntendon 2
tendon_solimp_lim d ntendon 5             tendon_solref_fri d ntendon 2             tendon_solimp_fri d ntendon 5
tendon_range d ntendon 2                  tendon_actfrcrange d ntendon 2            tendon_margin d ntendon 1
tendon_stiffness d ntendon 1              tendon_stiffnesspoly d ntendon 2          tendon_damping d ntendon 1
tendon_dampingpoly d ntendon 2            tendon_armature d ntendon 1               tendon_frictionloss d ntendon 1
tendon_lengthspring d ntendon 2           tendon_springyield d ntendon 1            tendon_length0 d ntendon 1
tendon_invweight0 d ntendon 1             tendon_user d ntendon nuser_tendon        tendon_rgba f ntendon 4
wrap_type i nwrap 1                       wrap_objid i nwrap 1                      wrap_prm d nwrap 1
actuator_trntype i nactuator 1            actuator_dyntype i nactuator 1            actuator_gaintype i nactuator 1
actuator_biastype i nactuator 1           actuator_ctrladr i nactuator 1            actuator_ctrlnum i nactuator 1
actuator_ctrlspec i nactuator 1           actuator_outadr i nactuator 1             actuator_outnum i nactuator 1
actuator_actadr i nactuator 1             actuator_actnum i nactuator 1             actuator_trnid i nactuator 2
actuator_cranklength d nactuator 1        actuator_dynprm d nactuator 10            actuator_gainprm d nactuator 10
actuator_biasprm d nactuator 10           actuator_actlimited b nactuator 1         actuator_actrange d nactuator 2
actuator_actearly b nactuator 1           actuator_history i nactuator 2            actuator_historyadr i nactuator 1
actuator_delay d nactuator 1              actuator_damping d nactuator 1            actuator_dampingpoly d nactuator 2
actuator_armature d nactuator 1           actuator_group i nactuator 1              actuator_user d nactuator nuser_actuator
actuator_plugin i nactuator 1             actuator_forcelimited b nactuator 1       actuator_forcerange d nactuator 2
actuator_ctrllimited b nu 1               actuator_ctrlrange d nu 2                 actuator_gear d nout 6
actuator_acc0 d nout 1                    actuator_length0 d nout 1                 actuator_lengthrange d nout 2
sensor_type i nsensor 1                   sensor_datatype i nsensor 1               sensor_needstage i nsensor 1
sensor_objtype i nsensor 1                sensor_objid i nsensor 1                  sensor_reftype i nsensor 1
sensor_refid i nsensor 1                  sensor_intprm i nsensor 3                 sensor_dim i nsensor 1
sensor_adr i nsensor 1                    sensor_cutoff d nsensor 1                 sensor_noise d nsensor 1
sensor_history i nsensor 2                sensor_historyadr i nsensor 1             sensor_delay d nsensor 1
sensor_interval d nsensor 2               sensor_user d nsensor nuser_sensor        sensor_plugin i nsensor 1
plugin i nplugin 1                        plugin_stateadr i nplugin 1               plugin_statenum i nplugin 1
plugin_attr c npluginattr 1               plugin_attradr i nplugin 1                numeric_adr i nnumeric 1
numeric_size i nnumeric 1                 numeric_data d nnumericdata 1             text_adr i ntext 1
text_size i ntext 1                       text_data c ntextdata 1                   tuple_adr i ntuple 1
tuple_size i ntuple 1                     tuple_objtype i ntupledata 1              tuple_objid i ntupledata 1
tuple_objprm d ntupledata 1               key_time d nkey 1                         key_qpos d nkey nq
key_qvel d nkey nv                        key_act d nkey na                         key_mpos d nkey nmocap
key_mquat d nkey nmocap                   key_ctrl d nkey nu                        key_plastic d nkey nplastic
name_bodyadr i nbody 1                    name_jntadr i njnt 1                      name_geomadr i ngeom 1
name_siteadr i nsite 1                    name_camadr i ncam 1                      name_lightadr i nlight 1
name_flexadr i nflex 1                    name_meshadr i nmesh 1                    name_skinadr i nskin 1
name_hfieldadr i nhfield 1                name_texadr i ntex 1                      name_matadr i nmat 1
name_pairadr i npair 1                    name_excludeadr i nexclude 1              name_eqadr i neq 1
name_tendonadr i ntendon 1                name_actuatoradr i nactuator 1            name_sensoradr i nsensor 1
name_numericadr i nnumeric 1              name_textadr i ntext 1                    name_tupleadr i ntuple 1
name_keyadr i nkey 1                      name_pluginadr i nplugin 1                names c nnames 1
names_map i nnames_map 1                  paths c npaths 1                          B_rownnz i nbody 1
B_rowadr i nbody 1                        B_colind i nB 1                           M_rownnz i nv 1
M_rowadr i nv 1                           M_colind i nC 1                           mapM2M i nC 1
D_rownnz i nv 1                           D_rowadr i nv 1                           D_diag i nv 1
D_colind i nD 1                           mapM2D i nD 1                             mapD2M i nC 1
"""
_TOKENS = _TABLE.split()
ARRAYS = [tuple(_TOKENS[i:i + 4]) for i in range(0, len(_TOKENS), 4)]
_DT = {"d": np.float64, "i": np.int32, "f": np.float32, "b": np.uint8, "c": np.uint8,
       "z": np.int64}
_OPTION_BYTES, _VISUAL_BYTES, _STAT_BYTES, _NFLAG = 304, 632, 56, 3
_HEADER = (MJB_ID, 8, len(SIZES), MJB_VERSION, len(ARRAYS))
_ENGINE = {name: (dtype, rows, cols) for name, dtype, rows, cols in MODEL_FIELDS}


def _dim(spec, sizes):
    return int(spec) if spec.isdigit() else int(sizes[spec])


def _struct_fields(prefix):
    """(field, dtype, count) of the engine's opt_* / stat_* fields, in mujoco's struct order."""
    out = []
    for name, dtype, _, cols in MODEL_FIELDS:
        if name.startswith(prefix):
            out.append((name, np.float64 if dtype == "f" else np.int32, int(cols)))
    return out


def _visual_fields():
    """(group, field, numpy dtype, count) of mjVisual in its memory order."""
    out = []
    for group, (_, _, fields) in VISUAL_TABLE.items():
        for name, kind, count, _, _ in fields:
            out.append((group, name, np.float32 if kind == "f" else np.int32, count))
    return out


def _read_struct(buf, off, fields):
    vals = {}
    for name, dt, n in fields:
        vals[name] = np.frombuffer(buf, dt, n, off).copy()
        off += n * np.dtype(dt).itemsize
    return vals, off


# ---- loading ------------------------------------------------------------------------------------
def load(buf):
    """An engine MjModel from the bytes of an MJB file (see the module docstring)."""
    from .model import NAME_ADR_FIELDS, NAME_SECTIONS, MjModel
    buf = bytes(buf)
    if len(buf) < 20:
        raise ValueError("MJB: file too short for the header")
    hdr = tuple(int(x) for x in np.frombuffer(buf, np.int32, 5, 0))
    if hdr[0] != MJB_ID:
        raise ValueError(f"MJB: not a MuJoCo binary model (id {hdr[0]}, expected {MJB_ID})")
    if hdr != _HEADER:
        raise ValueError(f"MJB: header {hdr} is not mujoco 4.0.0's {_HEADER} (another version "
                         "of the format)")
    off = 20
    sizes = {k: int(v) for k, v in zip(SIZES, np.frombuffer(buf, np.int64, len(SIZES), off))}
    off += 8 * len(SIZES)
    opt, end = _read_struct(buf, off, _struct_fields("opt_"))
    off += _OPTION_BYTES
    if end > off:
        raise AssertionError("MJB: the option table outgrew its struct")
    vis_start = off
    off += _VISUAL_BYTES
    stat, _ = _read_struct(buf, off, _struct_fields("stat_"))
    off += _STAT_BYTES
    flags = bytes(buf[off:off + _NFLAG])
    off += _NFLAG
    arrays = {}
    for name, t, rows, cols in ARRAYS:
        n = _dim(rows, sizes) * _dim(cols, sizes)
        dt = np.dtype(_DT[t])
        if off + n * dt.itemsize > len(buf):
            raise ValueError(f"MJB: file ends inside array {name}")
        arrays[name] = np.frombuffer(buf, dt, n, off)
        off += n * dt.itemsize
    if off != len(buf):
        raise ValueError(f"MJB: {len(buf) - off} bytes after the last array")
    values = {**opt, **stat}
    for name, (dtype, rows, cols) in _ENGINE.items():
        if name in arrays:
            values[name] = arrays[name]
    names_buf = arrays["names"].tobytes()

    def name_at(a):
        return names_buf[a:names_buf.index(b"\0", a)].decode()
    names = {}
    for (kind, x), field in zip(NAME_SECTIONS, NAME_ADR_FIELDS):
        names[kind] = [name_at(int(a)) or None for a in arrays.get(field, ())]
    modelname = name_at(0)
    m = MjModel({k: sizes.get(k, 0) for k in MODEL_SIZES}, values, names, modelname=modelname)
    m.__dict__["narena"] = sizes["narena"]
    vis, _ = _read_struct(buf, vis_start, [(f"{g}.{n}", dt, c) for g, n, dt, c in
                                           _visual_fields()])
    for key, v in vis.items():
        g, n = key.split(".")
        setattr(getattr(m.vis, g), n, v[0] if v.size == 1 else v)
    # what this engine does not build, kept to be written back unchanged (mj_saveModel)
    m.__dict__["_mjb_extra"] = (sizes, {k: v.copy() for k, v in arrays.items()
                                        if k not in _ENGINE}, flags)
    return m


def load_file(path):
    from .plugin.resource import read_file
    return load(read_file(os.fspath(path)))


# ---- saving -------------------------------------------------------------------------------------
def buffer_bytes(sizes):
    """mjModel.nbuffer for ``sizes``: the arrays laid out one after another, each non-empty one
    starting on a 64-byte boundary, plus 63 bytes to align the buffer itself (measured on
    mujoco 4.0.0's files; its loader rejects a file whose nbuffer differs)."""
    off = 0
    for _, t, rows, cols in ARRAYS:
        n = _dim(rows, sizes) * _dim(cols, sizes) * np.dtype(_DT[t]).itemsize
        if n:
            off = (off + 63) // 64 * 64 + n
    return off + 63


def save(m):
    """The MJB bytes of engine model ``m``. A model loaded from an MJB file keeps the arrays this
    engine does not build and writes them back; any other model needs them all to be empty,
    else NotImplementedError names them."""
    extra = m.__dict__.get("_mjb_extra")
    if "_bvh_source" in m.__dict__:
        from .compiler import bvh
        bvh.build_into(m)
    if extra is not None:
        sizes = dict(extra[0])
        for k in MODEL_SIZES:
            if k in sizes and k not in ("narena",) and int(getattr(m, k)) != sizes[k]:
                raise ValueError(f"mj_saveModel: size {k} changed since the model was loaded")
        others, flags = extra[1], extra[2]
    else:
        flags = bytes([int(np.any(m.body_gravcomp != 0)), 0, 0])
        sizes = {k: 0 for k in SIZES}
        sizes.update({k: int(getattr(m, k)) for k in MODEL_SIZES if k in sizes})
        sizes["nactuator"] = sizes["nout"] = m.nu   # one output per actuator
        # <size memory>, else the budget this engine's MjData uses (mujoco's compiler guesses
        # its own, 13-16 MiB on the corpus; the loader takes any)
        from .data import DEFAULT_MEMORY
        memory = int(m.__dict__.get("narena") or -1)
        sizes["narena"] = memory if memory > 0 else DEFAULT_MEMORY
        # sizes of the arrays the compiler keeps beside the arena (BVHs, names_map, ...)
        sizes.update({k: int(m.__dict__[k]) for k in SIZES
                      if k not in MODEL_SIZES and k in m.__dict__ and k != "narena"})
        sizes["nbuffer"] = buffer_bytes(sizes)
        others = {}
    missing = []
    parts = [np.array(_HEADER, np.int32).tobytes(),
             np.array([sizes[k] for k in SIZES], np.int64).tobytes()]
    struct = b"".join(np.asarray(getattr(m, name), dt).reshape(-1)[:n].astype(dt).tobytes()
                      for name, dt, n in _struct_fields("opt_"))
    parts.append(struct.ljust(_OPTION_BYTES, b"\0"))
    vis = b"".join(np.asarray(getattr(getattr(m.vis, g), n), dt).reshape(-1).tobytes()
                   for g, n, dt, c in _visual_fields())
    if len(vis) != _VISUAL_BYTES:
        raise AssertionError(f"MJB: mjVisual is {_VISUAL_BYTES} bytes, wrote {len(vis)}")
    parts.append(vis)
    parts.append(b"".join(np.asarray(getattr(m, name), dt).reshape(-1).tobytes()
                          for name, dt, n in _struct_fields("stat_")) + flags)
    for name, t, rows, cols in ARRAYS:
        n = _dim(rows, sizes) * _dim(cols, sizes)
        dt = np.dtype(_DT[t])
        if name == "names":
            a = np.frombuffer(m.names, np.uint8)
        elif name in _ENGINE or name.startswith("name_") and name.endswith("adr"):
            a = np.asarray(getattr(m, name))
        elif name in others:
            a = others[name]
        elif name in m.__dict__:            # built by the compiler beside the arena
            a = m.__dict__[name]
        elif n == 0:
            continue
        else:
            missing.append(name)
            continue
        if isinstance(a, bytes):                # paths
            a = np.frombuffer(a, np.uint8)
        a = np.ascontiguousarray(a, dt).reshape(-1)
        if a.size != n:
            raise AssertionError(f"MJB: {name} holds {a.size} values, the sizes say {n}")
        parts.append(a.tobytes())
    if missing:
        raise NotImplementedError(
            "mj_saveModel of a model compiled by this engine: mujoco's file needs arrays the "
            f"engine does not build: {', '.join(missing)} (a model loaded from an MJB file "
            "can be saved)")
    return b"".join(parts)


def mj_saveModel(m, filename=None, buffer=None):
    """Save ``m`` as MJB (mujoco's binary format of version 4.0.0) to ``filename``, or into
    ``buffer`` (a writable uint8 numpy array of at least mj_sizeModel(m) bytes), as the bindings'
    mj_saveModel(m, filename, buffer)."""
    from . import argcheck
    argcheck.model(m, "mj_saveModel")
    data = save(m)
    if buffer is not None:
        buf = np.asarray(buffer)
        if buf.dtype != np.uint8 or buf.size < len(data):
            raise ValueError(f"mj_saveModel: buffer must be uint8 of at least {len(data)} bytes")
        buf.reshape(-1)[:len(data)] = np.frombuffer(data, np.uint8)
    if filename is not None:
        with open(os.fspath(filename), "wb") as f:
            f.write(data)


def mj_sizeModel(m):
    """Bytes of ``m``'s MJB file (mj_saveModel)."""
    return len(save(m))
