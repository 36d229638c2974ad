"""The renderer's kernels: visibility (a z-buffer of axial depth and geom ids) and shading.

Visibility. Every pixel is the ray from the camera's centre through the pixel's centre. Geoms
drawn as triangles (meshes, boxes, height fields) are rasterized: each triangle's vertices are
projected, back faces culled (as MuJoCo's renderer does: a camera inside a mesh sees out of
it), the pixels whose centres fall inside it (2D edge functions) get its depth, computed
exactly as the distance along the pixel's ray to the triangle's plane (not interpolated), so it
equals mj_ray's distance on that face up to rounding. Primitives (spheres, capsules, ellipsoids,
cylinders, planes) are intersected analytically per pixel inside their projected bounding box
with mj_ray's own routines (engine/ray.py), so their depth equals mj_ray's as well; MuJoCo's
OpenGL renderer tessellates them, so its images differ there by the tessellation error.

Depth is *axial*: the distance along the camera's viewing axis (-z of the camera frame), what
mujoco.Renderer returns (it linearises the OpenGL depth buffer). The pixel ray is built with a
unit axial component, so the ray parameter is the axial depth; mj_ray's distance along the unit
ray is depth times the ray's length. An orthographic camera's pixel rays start on its image
plane (through the camera's position) and run along the axis. Surfaces nearer than ``near`` or farther than ``far`` (the
model's znear and zfar times its extent, as MuJoCo's projection) are clipped; empty pixels keep
``far`` (MuJoCo's cleared depth buffer reads as far).

Shading follows MuJoCo's classic OpenGL renderer (fixed-function lighting), with the normals of
primitives from their surfaces and of triangles interpolated from their corner normals
(scene.py, as MuJoCo's compiler makes a mesh's normals): the material's
emission times the colour, plus for each active light (the headlight first: directional along
the camera's axis) ambient and Lambert diffuse terms times the colour and a Blinn-Phong specular
term (material specular, exponent shininess * 128), with spot cones and attenuation for
positional lights. No shadows, reflections, fog or transparency; 2D textures only on planes
(the checker floor of most scenes, mip-mapped: texture.py), modulating the colour as MuJoCo
does; the skybox behind everything.

All kernels are nogil (engine/_jit.py), so a node can render on a thread while physics runs.
"""
from __future__ import annotations

import math

from .._jit import kernel
from ..math import mat_t_vec, mat_vec
from ..ray import _local, _ray_triangle, primitive_normal_local, ray_geom_local

from ..enums import mjGEOM_PLANE as _PLANE  # noqa
_KIND_TRIANGLES = 0
from ..enums import mjLIGHT_DIRECTIONAL as _LIGHT_DIRECTIONAL  # noqa


@kernel
def _pixel_ray(r, c, fx, fy, px, py, ortho):
    """Camera-frame origin and direction (axial component -1) of pixel (row r, column c)'s ray:
    from the camera's centre (perspective), or from the pixel's place on the image plane along
    the axis (orthographic; fx, fy then in pixels per metre)."""
    u, v = (c + 0.5 - px) / fx, -(r + 0.5 - py) / fy
    if ortho:
        return (u, v, 0.0), (0.0, 0.0, -1.0)
    return (0.0, 0.0, 0.0), (u, v, -1.0)


@kernel
def _world_ray(r, c, cam_pos, cam_mat, fx, fy, px, py, ortho):
    """`_pixel_ray` in the world frame."""
    o, d = _pixel_ray(r, c, fx, fy, px, py, ortho)
    ow = mat_vec(cam_mat, o)
    return (cam_pos[0] + ow[0], cam_pos[1] + ow[1], cam_pos[2] + ow[2]), mat_vec(cam_mat, d)


@kernel
def _project(x, y, zd, fx, fy, px, py, ortho):
    """Pixel coordinates (column, row; integers at pixel centres) of the camera-frame point
    (x, y) at depth zd > 0."""
    if ortho:
        return px + fx * x - 0.5, py - fy * y - 0.5
    return px + fx * x / zd - 0.5, py - fy * y / zd - 0.5


@kernel
def _bound_box(cam_pos, cam_mat, xpos, rb, fx, fy, px, py, ortho, near, width, height):
    """Pixel bounds (r0, r1, c0, c1, inclusive) of a sphere of radius rb at xpos; empty
    (r0 > r1) when it is off screen or behind the near plane; the whole image when the sphere
    reaches behind the camera's near plane or rb <= 0 (an infinite plane)."""
    cx, cy, cz = mat_t_vec(cam_mat, (xpos[0] - cam_pos[0], xpos[1] - cam_pos[1],
                                     xpos[2] - cam_pos[2]))
    zd = -cz
    if rb <= 0.0:
        return 0, height - 1, 0, width - 1
    if zd + rb < near:
        return 1, 0, 1, 0
    if zd - rb <= near:
        return 0, height - 1, 0, width - 1
    if ortho:
        return (max(0, int(math.floor(py - fy * (cy + rb) - 0.5))),
                min(height - 1, int(math.ceil(py - fy * (cy - rb) - 0.5))),
                max(0, int(math.floor(px + fx * (cx - rb) - 0.5))),
                min(width - 1, int(math.ceil(px + fx * (cx + rb) - 0.5))))
    # the sphere's extent in x/z and y/z: within its box's corners at the nearest and farthest
    # depths (conservative)
    xl = min((cx - rb) / (zd - rb), (cx - rb) / (zd + rb))
    xh = max((cx + rb) / (zd - rb), (cx + rb) / (zd + rb))
    yl = min((cy - rb) / (zd - rb), (cy - rb) / (zd + rb))
    yh = max((cy + rb) / (zd - rb), (cy + rb) / (zd + rb))
    c0 = max(0, int(math.floor(px + fx * xl - 0.5)))
    c1 = min(width - 1, int(math.ceil(px + fx * xh - 0.5)))
    r0 = max(0, int(math.floor(py - fy * yh - 0.5)))
    r1 = min(height - 1, int(math.ceil(py - fy * yl - 0.5)))
    return r0, r1, c0, c1


@kernel
def _inside(t, size, p):
    """Whether the point p (the primitive's frame) is inside a primitive of type t: a camera
    there sees only its back faces, which MuJoCo's renderer culls."""
    if t == 2:      # sphere
        return p[0] * p[0] + p[1] * p[1] + p[2] * p[2] < size[0] * size[0]
    if t == 3:      # capsule
        z = p[2] - min(max(p[2], -size[1]), size[1])
        return p[0] * p[0] + p[1] * p[1] + z * z < size[0] * size[0]
    if t == 4:      # ellipsoid
        return (p[0] / size[0]) ** 2 + (p[1] / size[1]) ** 2 + (p[2] / size[2]) ** 2 < 1.0
    if t == 5:      # cylinder
        return abs(p[2]) < size[1] and p[0] * p[0] + p[1] * p[1] < size[0] * size[0]
    return False    # a plane is seen from its front only (ray_geom_local)


@kernel
def _draw_primitive(g, gtype, size, xpos, xmat, cam_pos, cam_mat, fx, fy, px, py, ortho, near, far,
                    r0, r1, c0, c1, zbuf, gbuf):
    """Per-pixel analytic intersection of primitive geom g (mj_ray's routine) in a pixel box."""
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            ow, dw = _world_ray(r, c, cam_pos, cam_mat, fx, fy, px, py, ortho)
            lp, lv = _local(xpos, xmat, ow, dw)
            x = ray_geom_local(lp, lv, size, gtype)
            if x >= near and x <= far and x < zbuf[r, c]:
                zbuf[r, c] = x
                gbuf[r, c] = g


@kernel
def _near_bounds(a, b, cc, near, fx, fy, px, py, ortho, width, height):
    """Pixel bounds (r0, r1, c0, c1, inclusive, one pixel of margin) of the part of triangle
    (a, b, cc) (camera frame) at depth >= near: its vertices there and the points where its
    edges cross the near plane, projected."""
    xl, xh, yl, yh = math.inf, -math.inf, math.inf, -math.inf
    for k in range(3):
        p = a if k == 0 else (b if k == 1 else cc)
        q = b if k == 0 else (cc if k == 1 else a)
        zp, zq = -p[2], -q[2]
        for j in range(2):
            if j == 0:
                if zp < near:
                    continue
                x, y, z = p[0], p[1], zp
            else:
                if (zp < near) == (zq < near):
                    continue
                f = (near - zp) / (zq - zp)
                x, y, z = p[0] + f * (q[0] - p[0]), p[1] + f * (q[1] - p[1]), near
            sx, sy = _project(x, y, z, fx, fy, px, py, ortho)
            xl, xh, yl, yh = min(xl, sx), max(xh, sx), min(yl, sy), max(yh, sy)
    if xl > xh:
        return 1, 0, 1, 0
    return (max(0, int(math.floor(yl)) - 1), min(height - 1, int(math.ceil(yh)) + 1),
            max(0, int(math.floor(xl)) - 1), min(width - 1, int(math.ceil(xh)) + 1))


@kernel
def _draw_triangle_clipped(g, f, a, b, cc, fx, fy, px, py, ortho, near, far, zbuf, gbuf, fbuf):
    """A triangle reaching behind the near plane: a ray-triangle test (mj_ray's) at every
    pixel of its in-front part's bounds, the near plane clipping per pixel (only triangles
    next to the camera)."""
    h, w = zbuf.shape
    r0, r1, c0, c1 = _near_bounds(a, b, cc, near, fx, fy, px, py, ortho, w, h)
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            o, d = _pixel_ray(r, c, fx, fy, px, py, ortho)
            x = _ray_triangle(o, d, a, b, cc)
            if x >= near and x <= far and x < zbuf[r, c]:
                zbuf[r, c] = x
                gbuf[r, c] = g
                fbuf[r, c] = f


@kernel
def _draw_triangles(g, vadr, nvert, fadr, nface, shape_vert, shape_face, xpos, xmat, cam_pos,
                    cam_mat, fx, fy, px, py, ortho, near, far, vcam, vscr, zbuf, gbuf, fbuf):
    """Rasterize one geom's triangles (module docstring): vertices to the camera frame and the
    screen, then per triangle its covered pixel centres, each with its exact depth."""
    h, w = zbuf.shape
    # camera-from-geom rotation A = cam_mat^T xmat and translation t = cam_mat^T (xpos - cam)
    d0, d1, d2 = xpos[0] - cam_pos[0], xpos[1] - cam_pos[1], xpos[2] - cam_pos[2]
    for k in range(nvert):
        v = shape_vert[vadr + k]
        wx = xmat[0] * v[0] + xmat[1] * v[1] + xmat[2] * v[2] + d0
        wy = xmat[3] * v[0] + xmat[4] * v[1] + xmat[5] * v[2] + d1
        wz = xmat[6] * v[0] + xmat[7] * v[1] + xmat[8] * v[2] + d2
        for j in range(3):
            vcam[k, j] = cam_mat[j] * wx + cam_mat[3 + j] * wy + cam_mat[6 + j] * wz
        zd = -vcam[k, 2]
        if zd > 0.0:
            vscr[k, 0], vscr[k, 1] = _project(vcam[k, 0], vcam[k, 1], zd, fx, fy, px, py, ortho)
    for f in range(fadr, fadr + nface):
        ia, ib, ic = shape_face[f, 0], shape_face[f, 1], shape_face[f, 2]
        a, b, cc = vcam[ia], vcam[ib], vcam[ic]
        za, zb, zc = -a[2], -b[2], -cc[2]
        if (za < near and zb < near and zc < near) or (za > far and zb > far and zc > far):
            continue
        # plane of the triangle (camera frame): normal nc, nc . p = dn
        e1 = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
        e2 = (cc[0] - a[0], cc[1] - a[1], cc[2] - a[2])
        nc = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
              e1[0] * e2[1] - e1[1] * e2[0])
        nn = math.sqrt(nc[0] * nc[0] + nc[1] * nc[1] + nc[2] * nc[2])
        if nn == 0.0:
            continue
        # back faces are culled, as MuJoCo's renderer does (faces wind counter-clockwise seen
        # from outside: a face looks at the camera when its normal points at it)
        dn = nc[0] * a[0] + nc[1] * a[1] + nc[2] * a[2]
        if (nc[2] <= 0.0) if ortho else (dn >= 0.0):
            continue
        if za < near or zb < near or zc < near:
            _draw_triangle_clipped(g, f, a, b, cc, fx, fy, px, py, ortho, near, far, zbuf, gbuf,
                                   fbuf)
            continue
        x0, y0 = vscr[ia, 0], vscr[ia, 1]
        x1, y1 = vscr[ib, 0], vscr[ib, 1]
        x2, y2 = vscr[ic, 0], vscr[ic, 1]
        area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        if area == 0.0:
            continue
        s = 1.0 if area > 0.0 else -1.0
        c0 = max(0, int(math.ceil(min(x0, x1, x2))))
        c1 = min(w - 1, int(math.floor(max(x0, x1, x2))))
        r0 = max(0, int(math.ceil(min(y0, y1, y2))))
        r1 = min(h - 1, int(math.floor(max(y0, y1, y2))))
        if c0 > c1 or r0 > r1:
            continue
        for r in range(r0, r1 + 1):
            yr = float(r)
            ry = -(r + 0.5 - py) / fy
            for c in range(c0, c1 + 1):
                xc = float(c)
                # edge functions, all >= 0 inside (sign s makes either winding count)
                if s * ((x2 - x1) * (yr - y1) - (y2 - y1) * (xc - x1)) < 0.0:
                    continue
                if s * ((x0 - x2) * (yr - y2) - (y0 - y2) * (xc - x2)) < 0.0:
                    continue
                if s * ((x1 - x0) * (yr - y0) - (y1 - y0) * (xc - x0)) < 0.0:
                    continue
                # the pixel ray's parameter at the face's plane: nc . (o + x d) = dn
                u = (c + 0.5 - px) / fx
                if ortho:
                    x = (nc[0] * u + nc[1] * ry - dn) / nc[2]
                else:
                    den = nc[0] * u + nc[1] * ry - nc[2]
                    if den == 0.0:
                        continue
                    x = dn / den
                if x >= near and x <= far and x < zbuf[r, c]:
                    zbuf[r, c] = x
                    gbuf[r, c] = g
                    fbuf[r, c] = f


@kernel
def visibility(kind, shape, item_type, item_size, item_rbound, item_xpos, item_xmat,
               shape_vertadr, shape_vertnum, shape_faceadr, shape_facenum, shape_vert,
               shape_face, cam_pos, cam_mat, fx, fy, px, py, ortho, near, far, vcam, vscr,
               zbuf, gbuf, fbuf):
    """Fill the z-buffer ``zbuf`` (h, w: axial depth, m; ``far`` where empty), the item buffer
    ``gbuf`` (h, w: the index of the item seen, -1 where empty) and, for triangle pixels, the
    face's index in shape_face ``fbuf`` (h, w) for the items (geoms and sites: scene.py) seen from
    the camera at ``cam_pos`` with orientation ``cam_mat`` (row-major; columns x right, y up,
    z backwards) and pixel intrinsics fx, fy, px, py (pixels; principal point from the
    top-left corner)."""
    h, w = zbuf.shape
    for r in range(h):
        for c in range(w):
            zbuf[r, c] = far
            gbuf[r, c] = -1
    for i in range(kind.shape[0]):
        rb = item_rbound[i] if item_type[i] != _PLANE else 0.0
        r0, r1, c0, c1 = _bound_box(cam_pos, cam_mat, item_xpos[i], rb, fx, fy, px, py, ortho,
                                    near, w, h)
        if r0 > r1 or c0 > c1:
            continue
        if kind[i] == _KIND_TRIANGLES:
            s = shape[i]
            _draw_triangles(i, shape_vertadr[s], shape_vertnum[s], shape_faceadr[s],
                            shape_facenum[s], shape_vert, shape_face, item_xpos[i],
                            item_xmat[i], cam_pos, cam_mat, fx, fy, px, py, ortho, near, far,
                            vcam, vscr, zbuf, gbuf, fbuf)
        else:
            lp, _ = _local(item_xpos[i], item_xmat[i], cam_pos, cam_pos)
            if _inside(item_type[i], item_size[i], lp):
                continue
            _draw_primitive(i, item_type[i], item_size[i], item_xpos[i], item_xmat[i],
                            cam_pos, cam_mat, fx, fy, px, py, ortho, near, far, r0, r1, c0, c1,
                            zbuf, gbuf)


@kernel
def _texel(mip_rgb, adr, tw, th, u, v):
    """Nearest texel (rgb 0-1) of one mip level at wrapped coordinates (u, v)."""
    u -= math.floor(u)
    v -= math.floor(v)
    k = adr + min(th - 1, int(v * th)) * tw + min(tw - 1, int(u * tw))
    return mip_rgb[k, 0], mip_rgb[k, 1], mip_rgb[k, 2]


@kernel
def _texture(mip_rgb, adr, w, h, nlevel, u, v, texels):
    """The texture's colour at (u, v) for a pixel ``texels`` level-0 texels wide: the two mip
    levels around that width blended (trilinear filtering with nearest texels: texture.py)."""
    lod = math.log2(texels) if texels > 1.0 else 0.0
    k0 = min(int(lod), nlevel - 1)
    k1 = min(k0 + 1, nlevel - 1)
    f = min(lod - k0, 1.0)
    a0, a1, a2 = _texel(mip_rgb, adr[k0], w[k0], h[k0], u, v)
    b0, b1, b2 = _texel(mip_rgb, adr[k1], w[k1], h[k1], u, v)
    return a0 + f * (b0 - a0), a1 + f * (b1 - a1), a2 + f * (b2 - a2)


@kernel
def _barycentric(p, v, a, b, c):
    """Barycentric coordinates (u of b, v of c) where the line p + x v meets triangle (a, b, c)'s
    plane (Moller-Trumbore, as mj_ray's triangle test, without its bounds: the hit is known)."""
    e1 = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    e2 = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
    q = (v[1] * e2[2] - v[2] * e2[1], v[2] * e2[0] - v[0] * e2[2], v[0] * e2[1] - v[1] * e2[0])
    det = e1[0] * q[0] + e1[1] * q[1] + e1[2] * q[2]
    if det == 0.0:
        return 0.0, 0.0
    t = (p[0] - a[0], p[1] - a[1], p[2] - a[2])
    u = (t[0] * q[0] + t[1] * q[1] + t[2] * q[2]) / det
    r = (t[1] * e1[2] - t[2] * e1[1], t[2] * e1[0] - t[0] * e1[2], t[0] * e1[1] - t[1] * e1[0])
    w = (v[0] * r[0] + v[1] * r[1] + v[2] * r[2]) / det
    return min(max(u, 0.0), 1.0), min(max(w, 0.0), 1.0 - min(max(u, 0.0), 1.0))


@kernel
def _sky(sky_rgb, w, d):
    """The skybox's colour seen along world direction d: OpenGL's cube-map lookup of the
    direction turned so that world +z is the map's +y (MuJoCo draws its skybox z-up; measured
    against mujoco.Renderer's backgrounds)."""
    x, y, z = d[0], d[2], -d[1]
    ax, ay, az = abs(x), abs(y), abs(z)
    if ax >= ay and ax >= az:
        face, ma, sc, tc = (0, ax, -z, -y) if x > 0 else (1, ax, z, -y)
    elif ay >= az:
        face, ma, sc, tc = (2, ay, x, z) if y > 0 else (3, ay, x, -z)
    else:
        face, ma, sc, tc = (4, az, x, -y) if z > 0 else (5, az, -x, -y)
    i = min(w - 1, max(0, int((sc / ma + 1.0) * 0.5 * w)))
    j = min(w - 1, max(0, int((tc / ma + 1.0) * 0.5 * w)))
    k = (face * w + j) * w + i
    return sky_rgb[k, 0], sky_rgb[k, 1], sky_rgb[k, 2]


@kernel
def _light(n, vdir, p, ldir, lpos, directional, atten, cos_cutoff, exponent):
    """(cosine n.L, Blinn-Phong n.H, attenuation times spot factor) of one light at surface
    point p with unit normal n, seen along the unit view direction vdir (towards p)."""
    if directional:
        L = (-ldir[0], -ldir[1], -ldir[2])
        f = 1.0
    else:
        L = (lpos[0] - p[0], lpos[1] - p[1], lpos[2] - p[2])
        dist = math.sqrt(L[0] * L[0] + L[1] * L[1] + L[2] * L[2])
        if dist == 0.0:
            return 0.0, 0.0, 0.0
        L = (L[0] / dist, L[1] / dist, L[2] / dist)
        f = 1.0 / max(atten[0] + atten[1] * dist + atten[2] * dist * dist, 1e-12)
        # spot cone: cos_cutoff is the cosine of the cone's half-angle (< -1: no cone)
        if cos_cutoff >= -1.0:
            cosang = -(L[0] * ldir[0] + L[1] * ldir[1] + L[2] * ldir[2])
            if cosang < cos_cutoff:
                return 0.0, 0.0, 0.0
            f *= max(cosang, 0.0) ** exponent
    ndl = n[0] * L[0] + n[1] * L[1] + n[2] * L[2]
    hx, hy, hz = L[0] - vdir[0], L[1] - vdir[1], L[2] - vdir[2]
    hn = math.sqrt(hx * hx + hy * hy + hz * hz)
    ndh = (n[0] * hx + n[1] * hy + n[2] * hz) / hn if hn > 0.0 else 0.0
    return ndl, ndh, f


@kernel
def shade(zbuf, gbuf, fbuf, shape, shape_vertadr, shape_vert, shape_face, corner_normal,
          item_type, item_size, item_xpos, item_xmat, item_rgba,
          item_matid, mat_emission, mat_specular, mat_shininess, mat_texid, mat_texrepeat,
          mat_texuniform, mip_rgb, mip_adr, mip_w, mip_h, mip_n,
          light_active, light_directional, light_xpos, light_xdir, light_ambient,
          light_diffuse, light_specular, light_attenuation, light_coscutoff, light_exponent,
          sky_rgb, sky_w, cam_pos, cam_mat, fx, fy, px, py, ortho, rgb):
    """Colour every pixel of the visibility buffers into ``rgb`` (h, w, 3 uint8) with the
    lights given (index 0 is the headlight, already placed at the camera) and the skybox
    (``sky_rgb``, ``sky_w``: texture.py; black when sky_w is 0) where nothing was hit."""
    h, w = zbuf.shape
    for r in range(h):
        for c in range(w):
            g = gbuf[r, c]
            ow, dw = _world_ray(r, c, cam_pos, cam_mat, fx, fy, px, py, ortho)
            if g < 0:       # the skybox, or black without one
                b0 = b1 = b2 = 0.0
                if sky_w > 0:
                    b0, b1, b2 = _sky(sky_rgb, sky_w, dw)
                rgb[r, c, 0] = int(min(max(b0, 0.0), 1.0) * 255.0 + 0.5)
                rgb[r, c, 1] = int(min(max(b1, 0.0), 1.0) * 255.0 + 0.5)
                rgb[r, c, 2] = int(min(max(b2, 0.0), 1.0) * 255.0 + 0.5)
                continue
            t = zbuf[r, c]
            dl = math.sqrt(dw[0] * dw[0] + dw[1] * dw[1] + dw[2] * dw[2])
            vdir = (dw[0] / dl, dw[1] / dl, dw[2] / dl)
            p = (ow[0] + t * dw[0], ow[1] + t * dw[1], ow[2] + t * dw[2])
            gt = item_type[g]
            xm = item_xmat[g]
            lp, lv = _local(item_xpos[g], xm, ow, dw)
            q = (lp[0] + t * lv[0], lp[1] + t * lv[1], lp[2] + t * lv[2])
            if gt == 0 or gt == 2 or gt == 3 or gt == 4 or gt == 5:
                nl = primitive_normal_local(gt, item_size[g], q)
                n = mat_vec(xm, nl)
                nn = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
                n = (n[0] / nn, n[1] / nn, n[2] / nn) if nn > 0.0 else (0.0, 0.0, 1.0)
            else:
                # the face's corner normals (scene.py) interpolated at the hit: smooth shading
                f = fbuf[r, c]
                va = shape_vertadr[shape[g]]
                u, v = _barycentric(lp, lv, shape_vert[va + shape_face[f, 0]],
                                    shape_vert[va + shape_face[f, 1]],
                                    shape_vert[va + shape_face[f, 2]])
                w0 = 1.0 - u - v
                cn = corner_normal[f]
                n = mat_vec(xm, (w0 * cn[0, 0] + u * cn[1, 0] + v * cn[2, 0],
                                 w0 * cn[0, 1] + u * cn[1, 1] + v * cn[2, 1],
                                 w0 * cn[0, 2] + u * cn[1, 2] + v * cn[2, 2]))
                nn = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
                n = (n[0] / nn, n[1] / nn, n[2] / nn) if nn > 0.0 else (0.0, 0.0, 1.0)
            # the side facing the camera (OpenGL two-sided lighting)
            if n[0] * vdir[0] + n[1] * vdir[1] + n[2] * vdir[2] > 0.0:
                n = (-n[0], -n[1], -n[2])
            base0, base1, base2 = item_rgba[g, 0], item_rgba[g, 1], item_rgba[g, 2]
            emission, spec, shin = 0.0, 0.5, 0.5     # MuJoCo's material defaults
            mat = item_matid[g]
            if mat >= 0:
                emission, spec, shin = mat_emission[mat], mat_specular[mat], mat_shininess[mat]
                tex = mat_texid[mat]
                if tex >= 0 and gt == _PLANE and mip_n[tex] > 0:
                    # texture coordinates on a plane: per unit length when texuniform,
                    # otherwise over the plane's extent (seed 000 "material"); MuJoCo's
                    # images repeat a uniform texture texrepeat / 2 times per metre, start
                    # the image at the plane's centre with its first row toward +y (so t
                    # grows toward -y), as measured against mujoco's renderer with a 2x2
                    # four-colour image (test_render.py)
                    su, sv = 0.5 * (q[0] + 1.0), 0.5 * (1.0 - q[1])
                    if not mat_texuniform[mat] and item_size[g, 0] > 0.0:
                        su = 0.5 * (q[0] / item_size[g, 0] + 1.0)
                        sv = 0.5 * (1.0 - q[1] / item_size[g, 1])
                    # the pixel's width on the plane (m), stretched at grazing angles, in
                    # level-0 texels: which mip level to read
                    cosv = abs(n[0] * vdir[0] + n[1] * vdir[1] + n[2] * vdir[2])
                    width = (1.0 if ortho else t * dl) / fx / max(cosv, 1e-3)
                    rep = mat_texrepeat[mat, 0] * 0.5
                    if not mat_texuniform[mat] and item_size[g, 0] > 0.0:
                        rep = mat_texrepeat[mat, 0] * 0.5 / item_size[g, 0]
                    t0, t1, t2 = _texture(mip_rgb, mip_adr[tex], mip_w[tex], mip_h[tex],
                                          mip_n[tex], su * mat_texrepeat[mat, 0],
                                          sv * mat_texrepeat[mat, 1], width * rep * mip_w[tex, 0])
                    base0, base1, base2 = base0 * t0, base1 * t1, base2 * t2
            a0 = a1 = a2 = d0 = d1 = d2 = s0 = s1 = s2 = 0.0
            # the specular term only where it can show: ndh^e above 1/1000 (pow is the
            # costliest operation of the loop)
            e = shin * 128.0
            ndh_min = math.exp(-6.9 / e) if spec > 0.0 and e > 0.0 else 2.0
            for k in range(light_active.shape[0]):
                if not light_active[k]:
                    continue
                ndl, ndh, f = _light(n, vdir, p, light_xdir[k], light_xpos[k],
                                     light_directional[k], light_attenuation[k],
                                     light_coscutoff[k], light_exponent[k])
                la, ld, ls = light_ambient[k], light_diffuse[k], light_specular[k]
                a0, a1, a2 = a0 + f * la[0], a1 + f * la[1], a2 + f * la[2]
                if ndl > 0.0:
                    d0, d1, d2 = d0 + f * ndl * ld[0], d1 + f * ndl * ld[1], d2 + f * ndl * ld[2]
                    if ndh > ndh_min:
                        sp = f * ndh ** e
                        s0, s1, s2 = s0 + sp * ls[0], s1 + sp * ls[1], s2 + sp * ls[2]
            col0 = base0 * (emission + a0 + d0) + spec * s0
            col1 = base1 * (emission + a1 + d1) + spec * s1
            col2 = base2 * (emission + a2 + d2) + spec * s2
            rgb[r, c, 0] = int(min(max(col0, 0.0), 1.0) * 255.0 + 0.5)
            rgb[r, c, 1] = int(min(max(col1, 0.0), 1.0) * 255.0 + 0.5)
            rgb[r, c, 2] = int(min(max(col2, 0.0), 1.0) * 255.0 + 0.5)
