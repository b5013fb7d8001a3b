// Plays a GLB's animations in three.js (GLTFLoader + AnimationMixer) and compares each morphed mesh's
// morphTargetInfluences with the morph weights `animtune pose --json` reports for the same clip and time.
// Usage: node scripts/morph_threejs.mjs FILE.glb POSE.json...
//   each POSE.json is `animtune pose FILE.glb --clip NAME --time T --json` ("clip" and "time" say what to play).
// Exit 1 when any weight differs by more than 1e-5.
import { readFile } from 'node:fs/promises';
import { THREE, loadAnimatedGlb } from './three_glb.mjs';

const TOLERANCE = 1e-5;

const [file, ...poseFiles] = process.argv.slice(2);
if (!file || poseFiles.length === 0) {
  console.error('usage: node morph_threejs.mjs FILE.glb POSE.json...');
  process.exit(2);
}

const { gltf, objectsByName } = await loadAnimatedGlb(file);
let worst = { error: 0 };
let compared = 0;
for (const poseFile of poseFiles) {
  const pose = JSON.parse(await readFile(poseFile, 'utf8'));
  // An unnamed animation is '' to animtune and 'animation_0' to three.js: a file's only animation is that one.
  const clip =
    gltf.animations.find((a) => a.name === pose.clip) ??
    (gltf.animations.length === 1 ? gltf.animations[0] : undefined);
  if (!clip) {
    console.error(`${poseFile}: three.js has no animation '${pose.clip}' in ${file}`);
    process.exit(1);
  }
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(clip).play();
  mixer.setTime(pose.time);
  for (const entry of pose.morph_weights) {
    const object = objectsByName.get(entry.node);
    // A node whose mesh has several primitives is a group of meshes in three.js, each with the same influences.
    const mesh = object?.morphTargetInfluences ? object : object?.children.find((c) => c.morphTargetInfluences);
    if (!mesh) {
      console.error(`${file}: node '${entry.node}' has no morphed mesh in three.js`);
      process.exit(1);
    }
    entry.weights.forEach((w, i) => {
      const error = Math.abs(mesh.morphTargetInfluences[i] - w);
      compared += 1;
      if (error > worst.error) worst = { error, node: entry.node, target: i, clip: pose.clip, time: pose.time };
    });
  }
  mixer.stopAllAction();
  mixer.uncacheRoot(gltf.scene);
}

const where = worst.node ? ` (${worst.node} target ${worst.target}, ${worst.clip} at ${worst.time} s)` : '';
console.log(
  `${file}: three.js ${THREE.REVISION} compared ${compared} morph weights, max difference ${worst.error.toExponential(2)}${where}`,
);
process.exit(compared > 0 && worst.error <= TOLERANCE ? 0 : 1);
