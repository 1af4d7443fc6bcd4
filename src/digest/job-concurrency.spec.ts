import { JobConcurrency } from './job-concurrency';

describe('JobConcurrency', () => {
  it('starts as if every job were full, so that a worker starting on a backlog does not take too much', () => {
    expect(new JobConcurrency(200, 10).concurrency).toBe(20);
  });

  it('reaches nearly one job per event within a few dozen single-event jobs', () => {
    const jobs = new JobConcurrency(200, 10);
    for (let i = 0; i < 50; i++) jobs.observe(1);
    expect(jobs.concurrency).toBeGreaterThan(180);
  });

  it('takes fewer jobs at once when jobs carry several events, keeping the events in flight', () => {
    const jobs = new JobConcurrency(200, 10);
    for (let i = 0; i < 100; i++) jobs.observe(10);
    expect(jobs.concurrency).toBe(20);
    expect(jobs.concurrency * 10).toBe(200);
  });

  it('returns to one event per job when the queue holds single events again', () => {
    const jobs = new JobConcurrency(200, 10);
    for (let i = 0; i < 100; i++) jobs.observe(10);
    for (let i = 0; i < 100; i++) jobs.observe(1);
    expect(jobs.concurrency).toBe(200);
  });

  it('says when the concurrency changed, so that the worker is told only then', () => {
    const jobs = new JobConcurrency(200, 10);
    expect(jobs.observe(10)).toBe(false);
    expect(jobs.observe(1)).toBe(true);
    const settled = new JobConcurrency(200, 10);
    for (let i = 0; i < 200; i++) settled.observe(10);
    expect(settled.observe(10)).toBe(false);
  });

  it('never goes below one job', () => {
    const jobs = new JobConcurrency(1, 10);
    for (let i = 0; i < 50; i++) jobs.observe(10);
    expect(jobs.concurrency).toBe(1);
  });
});
