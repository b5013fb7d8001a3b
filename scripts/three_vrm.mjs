// three.js and pixiv's three-vrm in node for the checking scripts: a VRM loaded with VRMLoaderPlugin (textures
// dropped: node has no image decoder), a VRM Animation turned into a clip for it, and objects by glTF node name.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { readGlb, writeGlb } from './glb.mjs';

// The packages are installed in the working directory (as for the other node checks), not beside the scripts.
const moduleUrl = (name, file) => pathToFileURL(path.join(process.cwd(), 'node_modules', name, file)).href;
export const THREE = await import(moduleUrl('three', 'build/three.module.js'));
const { GLTFLoader } = await import(moduleUrl('three', 'examples/jsm/loaders/GLTFLoader.js'));
export const { FBXLoader } = await import(moduleUrl('three', 'examples/jsm/loaders/FBXLoader.js'));
export const { VRMLoaderPlugin, VRMUtils } = await import(moduleUrl('@pixiv/three-vrm', 'lib/three-vrm.module.js'));
const { VRMAnimationLoaderPlugin, createVRMAnimationClip } = await import(
  moduleUrl('@pixiv/three-vrm-animation', 'lib/three-vrm-animation.module.js')
);

// Runs `fn` with console.warn silenced (the loaders warn about the dropped textures).
export const quiet = (fn) => async (...args) => {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return await fn(...args);
  } finally {
    console.warn = warn;
  }
};
export const arrayBuffer = (bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

// Every texture reference (glTF's `*Texture` objects, MToon's, VRM 0.x's `textureProperties`) and the images.
const dropTextures = (json) => {
  const walk = (value) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        if (/Texture$|^textureProperties$/.test(key)) delete value[key];
        else walk(value[key]);
      }
    }
  };
  for (const key of ['images', 'textures', 'samplers']) delete json[key];
  walk(json.materials);
  walk(json.extensions);
};

// A GLB parsed by GLTFLoader with `plugin` registered, its textures dropped.
export const loadGltf = quiet(async (file, plugin) => {
  const { json, bin } = readGlb(await readFile(file));
  dropTextures(json);
  const loader = new GLTFLoader();
  loader.register(plugin);
  return loader.parseAsync(arrayBuffer(writeGlb(json, bin)), '');
});

// { gltf, vrm } of a VRM file, VRM 0.x turned to face +Z (as animtune turns it); exits 1 when it holds no VRM.
export async function loadVrm(file) {
  const gltf = await loadGltf(file, (parser) => new VRMLoaderPlugin(parser));
  const vrm = gltf.userData.vrm;
  if (!vrm) {
    console.error(`${file}: three-vrm found no VRM`);
    process.exit(1);
  }
  VRMUtils.rotateVRM0(vrm);
  return { gltf, vrm };
}

// The first VRM Animation of a .vrma file; exits 1 when it holds none.
export async function loadVrmAnimation(file) {
  const gltf = await loadGltf(file, (parser) => new VRMAnimationLoaderPlugin(parser));
  const animation = gltf.userData.vrmAnimations?.[0];
  if (!animation) {
    console.error(`${file}: three-vrm-animation found no VRM animation`);
    process.exit(1);
  }
  return animation;
}

// A rotation track whose values are `parent(t) * child(t)` at the union of both tracks' key times.
export const composeTracks = (parent, child) => {
  const times = [...new Set([...parent.times, ...child.times])].sort((a, b) => a - b);
  const p = parent.createInterpolant();
  const c = child.createInterpolant();
  const values = [];
  for (const t of times) {
    const q = new THREE.Quaternion().fromArray(p.evaluate(t));
    q.multiply(new THREE.Quaternion().fromArray(c.evaluate(t)));
    values.push(...q.toArray());
  }
  return new THREE.QuaternionKeyframeTrack(parent.name, times, values);
};

// three-vrm-animation's clip of `animation` for `vrm`. One rule is animtune's and the oracle is given it: a clip's
// UpperChest on a character without one is folded into Chest (three-vrm drops it), so the two are composed first.
export async function vrmAnimationClip(animation, vrm) {
  const rotation = animation.humanoidTracks.rotation;
  const hasUpperChest = vrm.humanoid.getNormalizedBoneNode('upperChest') != null;
  if (!hasUpperChest && rotation.has('upperChest') && rotation.has('chest')) {
    rotation.set('chest', composeTracks(rotation.get('chest'), rotation.get('upperChest')));
    rotation.delete('upperChest');
  }
  return quiet(async () => createVRMAnimationClip(animation, vrm))();
}

// The objects GLTFLoader made for the glTF's nodes, by the node name animtune prints.
export function objectsByNodeName(gltf) {
  const nodeNames = gltf.parser.json.nodes.map((n) => n.name);
  const objects = new Map();
  gltf.scene.traverse((object) => {
    const index = gltf.parser.associations.get(object)?.nodes;
    if (index !== undefined) objects.set(nodeNames[index], object);
  });
  return objects;
}
