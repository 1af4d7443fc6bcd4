/**
 * `npm run corpus:snapshots`: records what every corpus payload groups into (snapshots/<sdk>.json),
 * after new or recaptured payloads or a GROUPING_VERSION bump. Refuses, and writes nothing, when a
 * key changed while GROUPING_VERSION stayed the same (see corpus.ts).
 */
import { compare, explain, loadPayloads, readSnapshots, writeSnapshots } from './corpus';

const comparison = compare(loadPayloads(), readSnapshots());
const report = explain(comparison, { hint: false });
if (!report) {
  console.log('grouping snapshots are up to date');
} else {
  try {
    writeSnapshots(comparison);
    console.log(`grouping snapshots rewritten:\n${report}`);
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 1;
  }
}
