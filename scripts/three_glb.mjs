// three.js in node for the checking scripts: the module build the loaders themselves import, and a GLB loaded with
// GLTFLoader with its objects found by glTF node name (three.js sanitises names and makes them unique; the
// parser's associations give back each object's node index).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// three's FileLoader reports progress with the DOM's ProgressEvent, which node lacks (a .gltf's data URIs go
// through it).
globalThis.ProgressEvent ??= class ProgressEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    Object.assign(this, init);
  }
};

// three is installed in the working directory (as gltf-validator is), not beside the scripts.
const require = createRequire(path.join(process.cwd(), 'noop.js'));
const threeDir = path.dirname(path.dirname(require.resolve('three')));
export const THREE = await import(pathToFileURL(path.join(threeDir, 'build/three.module.js')).href);
const { GLTFLoader } = await import(
  pathToFileURL(path.join(threeDir, 'examples/jsm/loaders/GLTFLoader.js')).href
);

// { gltf, objectsByName } of a GLB file; exits 1 naming the file when it holds no animation.
export async function loadAnimatedGlb(file) {
  const bytes = await readFile(file);
  const gltf = await new GLTFLoader().parseAsync(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    '',
  );
  if (gltf.animations.length === 0) {
    console.error(`${file}: three.js found no animation`);
    process.exit(1);
  }
  const nodeNames = gltf.parser.json.nodes.map((n) => n.name ?? '');
  const objectsByName = new Map();
  gltf.scene.traverse((object) => {
    const index = gltf.parser.associations.get(object)?.nodes;
    if (index !== undefined) objectsByName.set(nodeNames[index], object);
  });
  return { gltf, objectsByName };
}
