import { assembleStep } from './assemble-state';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('assembleStep', () => {
  it('asks for the chunks not stored yet, each once, in the order given', () => {
    expect(assembleStep({ chunks: [B, A, B] }, new Set(), false)).toEqual({
      kind: 'answer',
      answer: { state: 'not_found', missingChunks: [B, A], detail: null },
    });
    expect(assembleStep({ chunks: [A, B] }, new Set([A]), false)).toEqual({
      kind: 'answer',
      answer: { state: 'not_found', missingChunks: [B], detail: null },
    });
  });

  it('assembles once every chunk is there', () => {
    expect(assembleStep({ chunks: [A, B] }, new Set([A, B]), false)).toEqual({ kind: 'assemble' });
  });

  it('answers ok for an upload assembled before, whatever chunks are left', () => {
    expect(assembleStep({ chunks: [A, B] }, new Set(), true)).toEqual({
      kind: 'answer',
      answer: { state: 'ok', missingChunks: [], detail: null },
    });
  });

  it('refuses an upload without chunks, which could never be assembled', () => {
    expect(assembleStep({ chunks: [] }, new Set(), false)).toEqual({
      kind: 'answer',
      answer: { state: 'error', missingChunks: [], detail: 'the upload names no chunks' },
    });
  });
});
