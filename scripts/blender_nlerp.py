# Blender itself reads a glTF export: Blender's glTF importer (Debian's blender 3.4) turns each node's rotation
# keys into per-component LINEAR quaternion curves, which Blender normalises when it poses the object: rotation
# keys read by nlerp, where glTF and three.js slerp. Run headless:
#
#   blender -b --python-exit-code 1 --python scripts/blender_nlerp.py -- FILE.glb TOLERANCE_CM T1 POSE1.json ...
#
# Each POSE.json is `animtune pose ... --time T --exact --json` of the source the file was baked from. Every
# joint of the pose whose node Blender imported is compared at 3 cm virtual points along its three axes (the
# bakes' metric), the file posed by Blender at T seconds; the worst distance must be within TOLERANCE_CM.
import json
import sys

import bpy
from mathutils import Matrix, Quaternion, Vector

argv = sys.argv[sys.argv.index("--") + 1:]
path, tolerance_cm, rest = argv[0], float(argv[1]), argv[2:]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=path)
scene = bpy.context.scene
fps = scene.render.fps / scene.render.fps_base
objects = {o.name: o for o in scene.objects}


def to_gltf(v):
    # Blender is Z-up; the importer turned glTF's +Y up to +Z: (x, y, z)_gltf = (x, z, -y)_blender.
    return Vector((v.x, v.z, -v.y))


def to_blender(v):
    # The inverse: the importer converts every node's local frame too, so a glTF local vector is this one in
    # the object's own Blender axes.
    return Vector((v.x, -v.z, v.y))


worst, where, compared = 0.0, "", 0
for t_text, pose_path in zip(rest[0::2], rest[1::2]):
    t = float(t_text)
    frame = t * fps
    scene.frame_set(int(frame), subframe=frame - int(frame))
    pose = json.load(open(pose_path))
    for joint in pose["joints"]:
        obj = objects.get(joint["name"])
        if obj is None:
            continue
        m = joint["model"]
        source = (
            Matrix.Translation(Vector(m["translation"]))
            @ Quaternion((m["rotation"][3], *m["rotation"][:3])).to_matrix().to_4x4()
            @ Matrix.Diagonal((*m["scale"], 1.0))
        )
        for axis in (Vector((0.03, 0, 0)), Vector((0, 0.03, 0)), Vector((0, 0, 0.03))):
            a = source @ axis
            b = to_gltf(obj.matrix_world @ to_blender(axis))
            d = (a - b).length * 100.0
            compared += 1
            if d > worst:
                worst, where = d, f"{joint['name']} at {t} s"
print(f"blender: {compared} virtual points, worst {worst:.5f} cm ({where}), limit {tolerance_cm} cm")
if compared == 0:
    raise SystemExit("blender: no joint of the poses was found among the imported nodes")
if worst > tolerance_cm:
    raise SystemExit(f"blender: {worst:.5f} cm over the {tolerance_cm} cm limit ({where})")
