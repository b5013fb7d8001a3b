// three-vrm's side of the paired spring-bone benchmark (scripts/bench-springs.sh): `springBoneManager.update(1/60)`
// on a VRM with a VRM Animation playing at 60 fps (the mixer and the humanoid copy run untimed before each update).
// Usage: node scripts/springs_bench_threevrm.mjs MODEL.vrm CLIP.vrma [updates]
// Prints `SPRINGS <joints> <ns per update>`: the total of the timed calls (process.hrtime) over their number, less
// the time an empty timed region takes in the same loop, after as many warm-up calls.
import { THREE, loadVrm, loadVrmAnimation, vrmAnimationClip } from './three_vrm.mjs';

const [model, clipFile, updatesArg] = process.argv.slice(2);
if (!clipFile) {
  console.error('usage: node springs_bench_threevrm.mjs MODEL.vrm CLIP.vrma [updates]');
  process.exit(2);
}
const updates = Number(updatesArg ?? 20000);
const { vrm } = await loadVrm(model);
const clip = await vrmAnimationClip(await loadVrmAnimation(clipFile), vrm);
const mixer = new THREE.AnimationMixer(vrm.scene);
mixer.clipAction(clip).play();
const manager = vrm.springBoneManager;
let total = 0n;
let empty = 0n;
const step = (k, timed) => {
  mixer.setTime((k % 240) / 60);
  vrm.humanoid.update();
  const t0 = process.hrtime.bigint();
  manager.update(1 / 60);
  const t1 = process.hrtime.bigint();
  const t2 = process.hrtime.bigint();
  if (timed) {
    total += t1 - t0;
    empty += process.hrtime.bigint() - t2;
  }
};
for (let k = 0; k < updates; k++) step(k, false);
for (let k = 0; k < updates; k++) step(k, true);
console.log(`SPRINGS ${manager.joints.size} ${Math.round(Number(total - empty) / updates)}`);
