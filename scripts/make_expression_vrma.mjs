// Adds expression tracks to a VRM Animation for the expression check against three-vrm: blink (on and off), aa,
// surprised (crossing the binary threshold while aa and happy play), lookUp (a steep ramp), angry and a custom
// expression, smirk; an existing expression keeps its track. All are LINEAR: three-vrm-animation 3.5.5 rebuilds
// each expression track as a NumberKeyframeTrack without its interpolation, so it plays STEP tracks linearly and
// reads a CUBICSPLINE track's in-tangents as its values (animtune samples them as glTF defines). The look-at node
// gets a track that looks about (yaw 35°, −25°, 10°; pitch −15°, 12°, 5°): it turns the eyes of a character whose
// look-at works by bones and sets lookUp, lookDown, lookLeft and lookRight on one whose look-at works by
// expressions, over those expressions' own tracks. (three-vrm applies a look only when its rotation changes, so
// the check samples times where it does.)
// Usage: node scripts/make_expression_vrma.mjs SRC.vrma OUT.vrma
import { readFile, writeFile } from 'node:fs/promises';

import { readGlb, writeGlb } from './glb.mjs';

const [src, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: node make_expression_vrma.mjs SRC.vrma OUT.vrma');
  process.exit(2);
}
const { json, bin } = readGlb(await readFile(src));
const ext = json.extensions.VRMC_vrm_animation;
ext.expressions = ext.expressions ?? {};
ext.expressions.preset = ext.expressions.preset ?? {};
const chunks = [bin];
let offset = bin.length;
const floats = (values) => {
  const data = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => data.writeFloatLE(v, i * 4));
  json.bufferViews.push({ buffer: 0, byteOffset: offset, byteLength: data.length });
  chunks.push(data);
  offset += data.length;
  return json.bufferViews.length - 1;
};
const animation = json.animations[0];
// A track of weights (the node's translation x) for `name`, on a new node.
const track = (name, kind, interpolation, times, weights) => {
  const node = json.nodes.length;
  json.nodes.push({ name });
  json.scenes[json.scene ?? 0].nodes.push(node);
  ext.expressions[kind] = ext.expressions[kind] ?? {};
  ext.expressions[kind][name] = { node };
  const input = json.accessors.length;
  json.accessors.push({
    bufferView: floats(times),
    componentType: 5126,
    count: times.length,
    type: 'SCALAR',
    min: [times[0]],
    max: [times[times.length - 1]],
  });
  const output = json.accessors.length;
  json.accessors.push({
    bufferView: floats(weights.flatMap((w) => [w, 0, 0])),
    componentType: 5126,
    count: weights.length,
    type: 'VEC3',
  });
  animation.samplers.push({ input, output, interpolation });
  animation.channels.push({ sampler: animation.samplers.length - 1, target: { node, path: 'translation' } });
};
// The look-at track: rotations Y then X (three.js's Euler YXZ), from (yaw, pitch) in degrees.
const look = (yaw, pitch) => {
  const [y, x] = [(yaw * Math.PI) / 360, (pitch * Math.PI) / 360];
  // qY * qX
  return [Math.cos(y) * Math.sin(x), Math.sin(y) * Math.cos(x), -Math.sin(y) * Math.sin(x), Math.cos(y) * Math.cos(x)];
};
if (ext.lookAt?.node !== undefined) {
  const lookTimes = [0, 1, 2, 3];
  const lookValues = [look(0, 0), look(35, -15), look(-25, 12), look(10, 5)].flat();
  const input = json.accessors.length;
  json.accessors.push({
    bufferView: floats(lookTimes),
    componentType: 5126,
    count: lookTimes.length,
    type: 'SCALAR',
    min: [0],
    max: [3],
  });
  const output = json.accessors.length;
  json.accessors.push({ bufferView: floats(lookValues), componentType: 5126, count: lookTimes.length, type: 'VEC4' });
  animation.samplers.push({ input, output, interpolation: 'LINEAR' });
  const channel = animation.channels.find((c) => c.target.node === ext.lookAt.node && c.target.path === 'rotation');
  channel.sampler = animation.samplers.length - 1;
}
track('blink', 'preset', 'LINEAR', [0, 0.5, 1, 1.5, 2, 3], [0, 1, 0, 1, 1, 0]);
track('aa', 'preset', 'LINEAR', [0, 1, 2, 3], [0, 0.8, 0.3, 0]);
track('surprised', 'preset', 'LINEAR', [0, 1.2, 1.4, 2.6, 3], [0, 0.3, 0.9, 0.6, 0]);
track('lookUp', 'preset', 'LINEAR', [0, 0.7, 0.75, 2.2, 2.25], [0, 0, 1, 1, 0]);
track('angry', 'preset', 'LINEAR', [0, 2.5, 3], [0, 0, 0.6]);
track('smirk', 'custom', 'LINEAR', [0, 3], [0, 1]);
const newBin = Buffer.concat(chunks);
json.buffers[0].byteLength = newBin.length;
await writeFile(out, writeGlb(json, newBin));
console.log(`${out}: expression tracks ${Object.keys(ext.expressions.preset).join(', ')}, smirk`);
