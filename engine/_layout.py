"""One table of every mjModel / mjData field the engine has, with its type and shape.

The table drives allocation, copying, comparisons and the compiled kernels' access (STYLE.md:
"one table of every model/data field with its shape"). Like MuJoCo's arena, all fields of one
dtype live in one contiguous buffer (float64, int32, uint8); the Python attribute ``m.body_pos`` is
a numpy view into it. Compiled kernels receive the three buffers plus an offset table and reach a
field by its index (`MF.body_pos`, `DF.xpos`), so a call into compiled code unboxes a handful of
arrays instead of hundreds (measured: 0.3 us vs 13 us per call for 150 fields).

Shapes are ``rows x cols``. ``rows`` is a size name (``nbody``, ``nv``...) or ``1`` for a
singleton; ``cols`` is an int or a size name (``nv`` for ``ten_J``, ``nq`` for ``key_qpos``).
"""
from __future__ import annotations

from enum import IntEnum

import numpy as np

F64, I32, U8 = "f", "i", "u"
DTYPES = {F64: np.float64, I32: np.int32, U8: np.uint8}

# Model sizes, in mjModel's order. Every one is an int attribute of MjModel.
MODEL_SIZES = (
    "nq nv nu na nbody nbvh njnt ngeom nsite ncam nlight nflex nmesh nmeshvert nmeshnormal "
    "nmeshtexcoord nmeshface nmeshgraph nmeshpoly nmeshpolyvert nmeshpolymap nhfield nhfielddata "
    "ntex ntexdata nmat npair nexclude neq ntendon nwrap nsensor nnumeric nnumericdata ntext "
    "ntextdata ntuple ntupledata nkey nmocap nplugin npluginattr nuser_body nuser_jnt nuser_geom nuser_site "
    "nuser_cam nuser_tendon nuser_actuator nuser_sensor nnames npaths nM nB nC nD ntree "
    "ngravcomp nemax njmax nconmax nuserdata nsensordata "
    # flexes and skins (seed 001 "mjModel"), after the others: existing indices stay put
    "nflexnode nflexvert nflexedge nflexelem nflexelemdata nflexelemedge nflexshelldata "
    "nflexstiffness nflexbending nflextexcoord nJfe nskin nskinvert nskintexvert nskinface "
    "nskinbone nskinbonevert"
).split()

# name dtype rows cols   (the meaning of each field is mjModel's: see seed 001, "mjModel")
MODEL_TABLE = """
qpos0 f nq 1
qpos_spring f nq 1
body_parentid i nbody 1
body_rootid i nbody 1
body_weldid i nbody 1
body_mocapid i nbody 1
body_jntnum i nbody 1
body_jntadr i nbody 1
body_dofnum i nbody 1
body_dofadr i nbody 1
body_treeid i nbody 1
body_geomnum i nbody 1
body_geomadr i nbody 1
body_simple u nbody 1
body_sameframe u nbody 1
body_pos f nbody 3
body_quat f nbody 4
body_ipos f nbody 3
body_iquat f nbody 4
body_mass f nbody 1
body_subtreemass f nbody 1
body_inertia f nbody 3
body_invweight0 f nbody 2
body_gravcomp f nbody 1
body_margin f nbody 1
body_contype i nbody 1
body_conaffinity i nbody 1
body_user f nbody nuser_body
jnt_type i njnt 1
jnt_qposadr i njnt 1
jnt_dofadr i njnt 1
jnt_bodyid i njnt 1
jnt_group i njnt 1
jnt_limited u njnt 1
jnt_actfrclimited u njnt 1
jnt_actgravcomp u njnt 1
jnt_solref f njnt 2
jnt_solimp f njnt 5
jnt_pos f njnt 3
jnt_axis f njnt 3
jnt_stiffness f njnt 1
jnt_range f njnt 2
jnt_actfrcrange f njnt 2
jnt_margin f njnt 1
jnt_user f njnt nuser_jnt
dof_bodyid i nv 1
dof_jntid i nv 1
dof_parentid i nv 1
dof_treeid i nv 1
dof_Madr i nv 1
dof_simplenum i nv 1
dof_solref f nv 2
dof_solimp f nv 5
dof_frictionloss f nv 1
dof_armature f nv 1
dof_damping f nv 1
dof_invweight0 f nv 1
dof_M0 f nv 1
dof_length f nv 1
tree_bodyadr i ntree 1
tree_bodynum i ntree 1
tree_dofadr i ntree 1
tree_dofnum i ntree 1
tree_sleep_policy i ntree 1
geom_type i ngeom 1
geom_contype i ngeom 1
geom_conaffinity i ngeom 1
geom_condim i ngeom 1
geom_bodyid i ngeom 1
geom_dataid i ngeom 1
geom_matid i ngeom 1
geom_group i ngeom 1
geom_priority i ngeom 1
geom_plugin i ngeom 1
geom_sameframe u ngeom 1
geom_solmix f ngeom 1
geom_solref f ngeom 2
geom_solimp f ngeom 5
geom_size f ngeom 3
geom_aabb f ngeom 6
geom_rbound f ngeom 1
geom_pos f ngeom 3
geom_quat f ngeom 4
geom_friction f ngeom 3
geom_margin f ngeom 1
geom_gap f ngeom 1
geom_fluid f ngeom 12
geom_surfacevel f ngeom 6
geom_user f ngeom nuser_geom
geom_rgba f ngeom 4
site_type i nsite 1
site_bodyid i nsite 1
site_matid i nsite 1
site_group i nsite 1
site_sameframe u nsite 1
site_size f nsite 3
site_pos f nsite 3
site_quat f nsite 4
site_user f nsite nuser_site
site_rgba f nsite 4
cam_mode i ncam 1
cam_bodyid i ncam 1
cam_targetbodyid i ncam 1
cam_pos f ncam 3
cam_quat f ncam 4
cam_poscom0 f ncam 3
cam_pos0 f ncam 3
cam_mat0 f ncam 9
cam_projection i ncam 1
cam_fovy f ncam 1
cam_ipd f ncam 1
cam_resolution i ncam 2
cam_sensorsize f ncam 2
cam_intrinsic f ncam 4
cam_user f ncam nuser_cam
light_mode i nlight 1
light_bodyid i nlight 1
light_targetbodyid i nlight 1
light_type i nlight 1
light_castshadow u nlight 1
light_active u nlight 1
light_pos f nlight 3
light_dir f nlight 3
light_poscom0 f nlight 3
light_pos0 f nlight 3
light_dir0 f nlight 3
light_attenuation f nlight 3
light_cutoff f nlight 1
light_exponent f nlight 1
light_softness f nlight 1
light_ambient f nlight 3
light_diffuse f nlight 3
light_specular f nlight 3
mesh_vertadr i nmesh 1
mesh_vertnum i nmesh 1
mesh_faceadr i nmesh 1
mesh_facenum i nmesh 1
mesh_graphadr i nmesh 1
mesh_scale f nmesh 3
mesh_pos f nmesh 3
mesh_quat f nmesh 4
mesh_vert f nmeshvert 3
mesh_face i nmeshface 3
mesh_graph i nmeshgraph 1
mesh_extrema i nmesh 27
mesh_polynum i nmesh 1
mesh_polyadr i nmesh 1
mesh_polynormal f nmeshpoly 3
mesh_polyvertadr i nmeshpoly 1
mesh_polyvertnum i nmeshpoly 1
mesh_polyvert i nmeshpolyvert 1
mesh_polymapadr i nmeshvert 1
mesh_polymapnum i nmeshvert 1
mesh_polymap i nmeshpolymap 1
hfield_size f nhfield 4
hfield_nrow i nhfield 1
hfield_ncol i nhfield 1
hfield_adr i nhfield 1
hfield_data f nhfielddata 1
tex_type i ntex 1
tex_colorspace i ntex 1
tex_height i ntex 1
tex_width i ntex 1
tex_nchannel i ntex 1
tex_adr i ntex 1
tex_data u ntexdata 1
mat_texid i nmat 10
mat_texrepeat f nmat 2
mat_texuniform u nmat 1
mat_emission f nmat 1
mat_specular f nmat 1
mat_shininess f nmat 1
mat_reflectance f nmat 1
mat_metallic f nmat 1
mat_roughness f nmat 1
mat_rgba f nmat 4
pair_dim i npair 1
pair_geom1 i npair 1
pair_geom2 i npair 1
pair_signature i npair 1
pair_solref f npair 2
pair_solreffriction f npair 2
pair_solimp f npair 5
pair_margin f npair 1
pair_gap f npair 1
pair_friction f npair 5
exclude_signature i nexclude 1
eq_type i neq 1
eq_obj1id i neq 1
eq_obj2id i neq 1
eq_objtype i neq 1
eq_active0 u neq 1
eq_solref f neq 2
eq_solimp f neq 5
eq_data f neq 12
tendon_adr i ntendon 1
tendon_num i ntendon 1
tendon_treenum i ntendon 1
tendon_treeid i ntendon 2
tendon_matid i ntendon 1
tendon_group i ntendon 1
tendon_limited u ntendon 1
tendon_actfrclimited u ntendon 1
tendon_width f ntendon 1
tendon_solref_lim f ntendon 2
tendon_solimp_lim f ntendon 5
tendon_solref_fri f ntendon 2
tendon_solimp_fri f ntendon 5
tendon_range f ntendon 2
tendon_actfrcrange f ntendon 2
tendon_margin f ntendon 1
tendon_stiffness f ntendon 1
tendon_damping f ntendon 1
tendon_armature f ntendon 1
tendon_frictionloss f ntendon 1
tendon_lengthspring f ntendon 2
tendon_length0 f ntendon 1
tendon_invweight0 f ntendon 1
tendon_user f ntendon nuser_tendon
tendon_rgba f ntendon 4
wrap_type i nwrap 1
wrap_objid i nwrap 1
wrap_prm f nwrap 1
actuator_trntype i nu 1
actuator_dyntype i nu 1
actuator_gaintype i nu 1
actuator_biastype i nu 1
actuator_trnid i nu 2
actuator_actadr i nu 1
actuator_actnum i nu 1
actuator_group i nu 1
actuator_ctrllimited u nu 1
actuator_forcelimited u nu 1
actuator_actlimited u nu 1
actuator_dynprm f nu 10
actuator_gainprm f nu 10
actuator_biasprm f nu 10
actuator_actearly u nu 1
actuator_ctrlrange f nu 2
actuator_forcerange f nu 2
actuator_actrange f nu 2
actuator_gear f nu 6
actuator_cranklength f nu 1
actuator_acc0 f nu 1
actuator_length0 f nu 1
actuator_lengthrange f nu 2
actuator_plugin i nu 1
actuator_user f nu nuser_actuator
sensor_type i nsensor 1
sensor_datatype i nsensor 1
sensor_needstage i nsensor 1
sensor_objtype i nsensor 1
sensor_objid i nsensor 1
sensor_reftype i nsensor 1
sensor_refid i nsensor 1
sensor_intprm i nsensor 3
sensor_dim i nsensor 1
sensor_adr i nsensor 1
sensor_cutoff f nsensor 1
sensor_noise f nsensor 1
sensor_plugin i nsensor 1
plugin i nplugin 1
plugin_attr u npluginattr 1
plugin_attradr i nplugin 1
sensor_user f nsensor nuser_sensor
numeric_adr i nnumeric 1
numeric_size i nnumeric 1
numeric_data f nnumericdata 1
tuple_adr i ntuple 1
tuple_size i ntuple 1
tuple_objtype i ntupledata 1
tuple_objid i ntupledata 1
tuple_objprm f ntupledata 1
key_time f nkey 1
key_qpos f nkey nq
key_qvel f nkey nv
key_act f nkey na
key_mpos f nkey nmocap3
key_mquat f nkey nmocap4
key_ctrl f nkey nu
actuator_damping f nu 1
actuator_armature f nu 1
actuator_dampingpoly f nu 2
actuator_delay f nu 1
actuator_ctrladr i nu 1
actuator_ctrlnum i nu 1
actuator_historyadr i nu 1
dof_dampingpoly f nv 2
jnt_stiffnesspoly f njnt 2
jnt_springyield f njnt 1
tendon_stiffnesspoly f ntendon 2
tendon_dampingpoly f ntendon 2
tendon_springyield f ntendon 1
sensor_delay f nsensor 1
sensor_interval f nsensor 2
sensor_historyadr i nsensor 1
M_rownnz i nv 1
M_rowadr i nv 1
M_colind i nC 1
mapM2M i nC 1
D_rownnz i nv 1
D_rowadr i nv 1
D_diag i nv 1
D_colind i nD 1
mapM2D i nD 1
mapD2M i nC 1
"""

# Option fields (m.opt.*) live in the model's buffers too, so kernels read them like any field.
OPTION_TABLE = """
opt_timestep f 1 1
opt_impratio f 1 1
opt_tolerance f 1 1
opt_ls_tolerance f 1 1
opt_noslip_tolerance f 1 1
opt_ccd_tolerance f 1 1
opt_sleep_tolerance f 1 1
opt_gravity f 1 3
opt_wind f 1 3
opt_magnetic f 1 3
opt_density f 1 1
opt_viscosity f 1 1
opt_o_margin f 1 1
opt_o_solref f 1 2
opt_o_solimp f 1 5
opt_o_friction f 1 5
opt_integrator i 1 1
opt_cone i 1 1
opt_jacobian i 1 1
opt_solver i 1 1
opt_iterations i 1 1
opt_ls_iterations i 1 1
opt_noslip_iterations i 1 1
opt_ccd_iterations i 1 1
opt_disableflags i 1 1
opt_enableflags i 1 1
opt_disableactuator i 1 1
opt_sdf_initpoints i 1 1
opt_sdf_iterations i 1 1
stat_meaninertia f 1 1
stat_meanmass f 1 1
stat_meansize f 1 1
stat_extent f 1 1
stat_center f 1 3
"""

# Data sizes beyond the model's: the constraint rows and contacts are bounded by nemax/njmax/nconmax.
DATA_TABLE = """
time f 1 1
qpos f nq 1
qvel f nv 1
act f na 1
qacc_warmstart f nv 1
ctrl f nu 1
qfrc_applied f nv 1
xfrc_applied f nbody 6
mocap_pos f nmocap 3
mocap_quat f nmocap 4
eq_active u neq 1
qacc f nv 1
act_dot f na 1
userdata f nuserdata 1
sensordata f nsensordata 1
xpos f nbody 3
xquat f nbody 4
xmat f nbody 9
xipos f nbody 3
ximat f nbody 9
xiquat f nbody 4
xanchor f njnt 3
xaxis f njnt 3
geom_xpos f ngeom 3
geom_xmat f ngeom 9
geom_xquat f ngeom 4
site_xpos f nsite 3
site_xmat f nsite 9
site_xquat f nsite 4
cam_xpos f ncam 3
cam_xmat f ncam 9
light_xpos f nlight 3
light_xdir f nlight 3
subtree_com f nbody 3
cdof f nv 6
cinert f nbody 10
ten_wrapadr i ntendon 1
ten_wrapnum i ntendon 1
ten_J_rownnz i ntendon 1
ten_J_rowadr i ntendon 1
ten_J_colind i ntendon nv
ten_length f ntendon 1
ten_J f ntendon nv
wrap_obj i nwrap 2
wrap_xpos f nwrap 6
actuator_length f nu 1
moment_rownnz i nu 1
moment_rowadr i nu 1
moment_colind i nu nv
actuator_moment f nu nv
crb f nbody 10
qM f nM 1
M f nC 1
qLD f nC 1
qLDiagInv f nv 1
ten_velocity f ntendon 1
actuator_velocity f nu 1
cvel f nbody 6
cdof_dot f nv 6
qfrc_bias f nv 1
qfrc_spring f nv 1
qfrc_damper f nv 1
qfrc_gravcomp f nv 1
qfrc_fluid f nv 1
qfrc_passive f nv 1
subtree_linvel f nbody 3
subtree_angmom f nbody 3
qH f nC 1
qHDiagInv f nv 1
actuator_force f nu 1
qfrc_actuator f nv 1
qfrc_smooth f nv 1
qacc_smooth f nv 1
qfrc_constraint f nv 1
qfrc_inverse f nv 1
cacc f nbody 6
cfrc_int f nbody 6
cfrc_ext f nbody 6
energy f 1 2
qDeriv f nD 1
qLU f nD 1
ncon i 1 1
ne i 1 1
nf i 1 1
nl i 1 1
nefc i 1 1
nJ i 1 1
contact_dist f nconcap 1
contact_pos f nconcap 3
contact_frame f nconcap 9
contact_includemargin f nconcap 1
contact_friction f nconcap 5
contact_solref f nconcap 2
contact_solreffriction f nconcap 2
contact_solimp f nconcap 5
contact_mu f nconcap 1
contact_H f nconcap 36
contact_dim i nconcap 1
contact_geom1 i nconcap 1
contact_geom2 i nconcap 1
contact_geom i nconcap 2
contact_flex i nconcap 2
contact_elem i nconcap 2
contact_vert i nconcap 2
contact_exclude i nconcap 1
contact_efc_address i nconcap 1
efc_type i njcap 1
efc_id i njcap 1
efc_J_rownnz i njcap 1
efc_J_rowadr i njcap 1
efc_J_rowsuper i njcap 1
efc_J_colind i nJcap 1
efc_J f nJcap 1
efc_pos f njcap 1
efc_margin f njcap 1
efc_frictionloss f njcap 1
efc_diagApprox f njcap 1
efc_KBIP f njcap 4
efc_D f njcap 1
efc_R f njcap 1
efc_vel f njcap 1
efc_aref f njcap 1
efc_b f njcap 1
efc_force f njcap 1
efc_state i njcap 1
solver_niter i 20 1
solver_nnz i 20 1
solver_stat f 4000 7
solver_fwdinv f 1 2
nisland i 1 1
nidof i 1 1
tree_island i ntree 1
island_ntree i ntree 1
island_itreeadr i ntree 1
map_itree2tree i ntree 1
dof_island i nv 1
island_nv i ntree 1
island_idofadr i ntree 1
island_dofadr i ntree 1
map_dof2idof i nv 1
map_idof2dof i nv 1
ifrc_smooth f nv 1
iacc_smooth f nv 1
iacc f nv 1
efc_island i njcap 1
island_ne i ntree 1
island_nf i ntree 1
island_nefc i ntree 1
island_iefcadr i ntree 1
map_efc2iefc i njcap 1
map_iefc2efc i njcap 1
iefc_type i njcap 1
iefc_id i njcap 1
iefc_frictionloss f njcap 1
iefc_D f njcap 1
iefc_R f njcap 1
iefc_aref f njcap 1
iefc_state i njcap 1
iefc_force f njcap 1
ifrc_constraint f nv 1
tree_asleep i ntree 1
tree_awake i ntree 1
body_awake i nbody 1
body_awake_ind i nbody 1
parent_awake_ind i nbody 1
dof_awake_ind i nv 1
ntree_awake i 1 1
nbody_awake i 1 1
nparent_awake i 1 1
nv_awake i 1 1
"""

# Scratch space for the kernels (not part of mjData's public fields); sized per model.
SCRATCH_TABLE = """
scratch_nv f nv 6
scratch_body f nbody 6
sm_cacc f nbody 6
sm_cfrc f nbody 6
sm_wrapbody i nwrap 2
sm_wrapdiv f nwrap 2
sm_tenjdq f ntendon 1
sm_tenarm f ntendon 1
sm_tenmark i nv 1
warning_lastinfo i 7 1
warning_number i 7 1
scratch_M f nM 1
scratch_D f nD 1
scratch_q f 2 nq
scratch_v f 16 nv
scratch_a f 12 na
scratch_ind i nv 1
pa_work f 6 6
fw_cvel f nbody 6
fw_cdofdot f nv 6
fw_cacc f nbody 6
fw_cfrc f nbody 6
fw_status i 4 1
inv_jar f njcap 1
cn_J f 6 nv
cn_cols i nv 1
cn_loc i nv 1
col_aabb f ngeom 6
col_order i ngeom 1
col_state i 2 1
col_dist f nconcap 1
col_pos f nconcap 3
col_frame f nconcap 9
col_info i nconcap 8
col_perm i 2 nconcap
col_tdist f 50 1
col_tpos f 50 3
col_tframe f 50 9
ccd_work f 5124 9
ccd_iwork i 6144 4
hf_work f 4 18
sol_vec f 8 nv
sol_efc f 4 njcap
sol_state i njcap 1
sol_H f nHcap 1
sol_MinvJ f nMJcap 1
sol_MJcolind i nMJidx 1
sol_MJrownnz i njcap 1
sol_MJrowadr i njcap 1
sol_Lcolind i nLcap 1
sol_Lrownnz i nv 1
sol_Lrowadr i nv 1
sol_JT i 2 nJTcap
sol_JTrownnz i nv 1
sol_JTrowadr i nv 1
sol_etree i 2 nv
sol_mark i 2 nv
sol_hnnz i 4 1
sol_blk f 8 36
sol_perm i njcap 1
sol_rows i njcap 1
sol_dofs i nv 1
sol_loc i nv 1
sol_tree i ntree 1
fluid_B f 7 6
fluid_work f 5 3
fluid_J f 6 nv
sens_match i nconcap 2
sens_crit f nconcap 1
sens_fromto f 2 6
"""


# Flexes and skins (seed 000 <deformable>, <flexcomp>; seed 001 "mjModel"): their model fields,
# in mjModel's order, after the option table so that the other fields keep their indices.
# Flex vertex, edge and element counts are the n* sizes above; nJfe is the flex edges' sparse
# Jacobian's nonzeros. MuJoCo's float32 fields (flex_rgba, flex_texcoord, skin_*) are float64.
FLEX_MODEL_TABLE = """
flex_contype i nflex 1
flex_conaffinity i nflex 1
flex_condim i nflex 1
flex_priority i nflex 1
flex_solmix f nflex 1
flex_solref f nflex 2
flex_solimp f nflex 5
flex_friction f nflex 3
flex_margin f nflex 1
flex_gap f nflex 1
flex_selfcollide i nflex 1
flex_activelayers i nflex 1
flex_passive i nflex 1
flex_dim i nflex 1
flex_matid i nflexelem 1
flex_group i nflex 1
flex_interp i nflex 1
flex_cellnum i nflex 3
flex_nodeadr i nflex 1
flex_nodenum i nflex 1
flex_vertadr i nflex 1
flex_vertnum i nflex 1
flex_edgeadr i nflex 1
flex_edgenum i nflex 1
flex_elemadr i nflex 1
flex_elemnum i nflex 1
flex_elemdataadr i nflex 1
flex_stiffnessadr i nflex 1
flex_elemedgeadr i nflex 1
flex_bendingadr i nflex 1
flex_plasticadr i nflex 1
flex_plasticmode i nflex 1
flex_shellnum i nflex 1
flex_shelldataadr i nflex 1
flex_texcoordadr i nflex 1
flex_nodebodyid i nflexnode 1
flex_vertbodyid i nflexvert 1
flex_vertcell i nflexvert 1
flex_edge i nflexedge 2
flex_edgeflap i nflexedge 2
flex_elem i nflexelemdata 1
flex_elemtexcoord i nflexelemdata 1
flex_elemedge i nflexelemedge 1
flex_elemlayer i nflexelem 1
flex_shell i nflexshelldata 1
flex_vert f nflexvert 3
flex_vert0 f nflexvert 3
flex_node f nflexnode 3
flex_node0 f nflexnode 3
flexedge_length0 f nflexedge 1
flexedge_invweight0 f nflexedge 1
flex_radius f nflex 1
flex_size f nflex 3
flex_stiffness f nflexstiffness 1
flex_bending f nflexbending 1
flex_damping f nflex 1
flex_yield f nflex 2
flex_edgestiffness f nflex 1
flex_edgedamping f nflex 1
flex_edgeequality i nflex 1
flex_rigid u nflex 1
flexedge_rigid u nflexedge 1
flex_centered u nflex 1
flex_flatskin u nflex 1
flex_bvhadr i nflex 1
flex_bvhnum i nflex 1
flexedge_J_rownnz i nflexedge 1
flexedge_J_rowadr i nflexedge 1
flexedge_J_colind i nJfe 1
flex_rgba f nflex 4
flex_texcoord f nflextexcoord 2
skin_matid i nskin 1
skin_group i nskin 1
skin_rgba f nskin 4
skin_inflate f nskin 1
skin_vertadr i nskin 1
skin_vertnum i nskin 1
skin_texcoordadr i nskin 1
skin_faceadr i nskin 1
skin_facenum i nskin 1
skin_boneadr i nskin 1
skin_bonenum i nskin 1
skin_pathadr i nskin 1
skin_vert f nskinvert 3
skin_texcoord f nskintexvert 2
skin_face i nskinface 3
skin_bonevertadr i nskinbone 1
skin_bonevertnum i nskinbone 1
skin_bonebindpos f nskinbone 3
skin_bonebindquat f nskinbone 4
skin_bonebodyid i nskinbone 1
skin_bonevertid i nskinbonevert 1
skin_bonevertweight f nskinbonevert 1
"""

# Flex kinematics and flex passive-force workspace (mjData), after the scratch rows; then the
# flex collision scratch: col_flex (a staged contact's flex, elem, vert pairs) and flexcon_cols
# (dof column merges of a flex contact's bodies).
FLEX_DATA_TABLE = """
flexvert_xpos f nflexvert 3
flexelem_aabb f nflexelem 6
flexedge_J f nJfe 1
flexedge_length f nflexedge 1
flexedge_velocity f nflexedge 1
flexelem_krot f nflexstiffness 1
flexvert_hessian f nflexvert 6
flexedge_hessian f nflexedge 9
flexvert_lambda f nflexvert 1
flexvert_conage i nflexvert 1
flex_hessian_valid u nflex 1
col_flex i nconcap 6
flexcon_cols i 2 nv
"""

# Contact adhesion (MuJoCo 4: <geom adhesion>, <pair adhesion>; the adhesive force of a contact,
# mjContact.adhesion, and its passive term qfrc_adhesion), after the flex tables so that the
# other fields keep their indices.
ADHESION_MODEL_TABLE = """
geom_adhesion f ngeom 1
pair_adhesion f npair 1
"""
ADHESION_DATA_TABLE = """
contact_adhesion f nconcap 1
qfrc_adhesion f nv 1
"""


def _parse(table):
    out = []
    for line in table.strip().splitlines():
        name, dtype, rows, cols = line.split()
        rows = int(rows) if rows.isdigit() else rows
        cols = int(cols) if cols.isdigit() else cols
        out.append((name, dtype, rows, cols))
    return out


MODEL_FIELDS = (_parse(MODEL_TABLE) + _parse(OPTION_TABLE) + _parse(FLEX_MODEL_TABLE)
                + _parse(ADHESION_MODEL_TABLE))
DATA_FIELDS = (_parse(DATA_TABLE) + _parse(SCRATCH_TABLE) + _parse(FLEX_DATA_TABLE)
               + _parse(ADHESION_DATA_TABLE))

# Field indices for compiled kernels: `MF.body_pos`, `DF.xpos`. Sizes: `MS.nbody`.
MF = IntEnum("MF", [f[0] for f in MODEL_FIELDS], start=0)
DF = IntEnum("DF", [f[0] for f in DATA_FIELDS], start=0)
MS = IntEnum("MS", MODEL_SIZES, start=0)


# Sizes of the constraint Jacobian's storage (seed 001 "Data layout", "Memory allocation"). Below
# SPARSE_NV dofs mj_isSparse's AUTO keeps dense rows (nv entries each); from SPARSE_NV on the rows
# are compressed and a row holds its nonzeros only: the dofs of its bodies' chains, e.g. 13 for a
# humanoid's hand, up to ~30 for a contact between two limbs. efc_J then gets JAC_ROW_WIDTH
# entries per allocated row on average (the rows share one pool, nJcap; make_constraint reports
# a full pool), and the solvers' M^-1 J' rows (PGS, noslip) MINVJ_ROW_WIDTH: the dofs of the one
# or two kinematic trees a row touches. data.capacity() sizes njcap with these costs.
SPARSE_NV = 60
JAC_ROW_WIDTH = 32
MINVJ_ROW_WIDTH = 64


def constraint_pools(nv, nM, njcap, sparse):
    """The sizes of the constraint rows' pools for njcap rows, as the arena's dimensions:
    nJcap (efc_J, efc_J_colind), nMJcap (M^-1 J' values), nMJidx (their columns), nJTcap (the
    transposed Jacobian of sparse Newton), nHcap (Newton's Hessian values), nLcap (its sparse
    factor's columns). Dense rows take nv entries each and a dense nv x nv Hessian; sparse rows
    JAC_ROW_WIDTH / MINVJ_ROW_WIDTH entries on average, the factor of M + J'DJ M's entries (nM)
    plus a fill bounded in practice by the Jacobian's entries. ``sparse``: mj_isSparse of the
    model when the data is made."""
    if not sparse:
        return dict(nJcap=njcap * nv, nMJcap=njcap * nv, nMJidx=0, nJTcap=0,
                    nHcap=nv * nv, nLcap=0)
    nJ = njcap * min(nv, JAC_ROW_WIDTH)
    return dict(nJcap=nJ, nMJcap=njcap * min(nv, MINVJ_ROW_WIDTH),
                nMJidx=njcap * min(nv, MINVJ_ROW_WIDTH), nJTcap=nJ, nHcap=nJ + nM, nLcap=nJ + nM)


def row_bytes(nv, sparse):
    """Arena bytes of one constraint row's share of the pools of constraint_pools (beside its
    own scalars): what data.capacity() charges per row (the pools' growth from one row to two;
    dense mode's nv x nv Hessian does not grow with the rows)."""
    a, b = constraint_pools(nv, 0, 1, sparse), constraint_pools(nv, 0, 2, sparse)
    p = {k: b[k] - a[k] for k in a}
    return (8 * (p["nJcap"] + p["nMJcap"] + p["nHcap"])
            + 4 * (p["nJcap"] + p["nMJidx"] + 2 * p["nJTcap"] + p["nLcap"]))


def _dim(spec, sizes):
    if isinstance(spec, int):
        return spec
    if spec == "nmocap3":
        return 3 * sizes["nmocap"]
    if spec == "nmocap4":
        return 4 * sizes["nmocap"]
    return sizes[spec]


class Arena:
    """Three contiguous buffers (float64, int32, uint8) holding every field of a table.

    ``off[k]`` is field k's start in the buffer of its dtype, ``rows[k]``/``cols[k]`` its shape
    (the three rows of ``meta``).
    ``views`` maps field names to numpy views: 2-D ``(rows, cols)``, except 1-D when cols == 1 or
    the field is a singleton row (``opt_gravity``: 3 values; ``time``: a 1-element view that can be
    written in place).
    """

    def __init__(self, fields, sizes):
        n = len(fields)
        self.meta = np.zeros((3, n), np.int64)
        self.off, self.rows, self.cols = self.meta[0], self.meta[1], self.meta[2]
        total = {F64: 0, I32: 0, U8: 0}
        for k, (_, dtype, rows, cols) in enumerate(fields):
            r, c = _dim(rows, sizes), _dim(cols, sizes)
            self.off[k], self.rows[k], self.cols[k] = total[dtype], r, c
            total[dtype] += r * c
        self.f = np.zeros(total[F64], np.float64)
        self.i = np.zeros(total[I32], np.int32)
        self.u = np.zeros(total[U8], np.uint8)
        self.views = {}
        for k, (name, dtype, rows, cols) in enumerate(fields):
            buf = {F64: self.f, I32: self.i, U8: self.u}[dtype]
            o, r, c = int(self.off[k]), int(self.rows[k]), int(self.cols[k])
            flat = buf[o:o + r * c]
            self.views[name] = flat if (cols == 1 or rows == 1) else flat.reshape(r, c)

    def buffers(self):
        """What compiled kernels receive: (f64 buffer, i32 buffer, u8 buffer, meta)."""
        return (self.f, self.i, self.u, self.meta)
