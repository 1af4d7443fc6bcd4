import {
  describeDigestJob,
  DIGEST_JOB_OPTIONS,
  digestJob,
  digestJobId,
  digestJobs,
  DigestJobName,
  eventsOfJob,
  MAX_EVENTS_PER_JOB,
  QueuedEvent,
} from './digest-job';

function queued(count: number, projectId = 7): QueuedEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    projectId,
    eventId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    receivedAt: 1_700_000_000_000 + index,
    payload: `{"message":"event ${index}"}`,
  }));
}

describe('digest jobs', () => {
  it('keeps a lone event in a job of its own, under its event job id, as before shared jobs', () => {
    const [event] = queued(1);
    expect(digestJob([event])).toEqual({
      name: DigestJobName.Event,
      data: event,
      opts: { ...DIGEST_JOB_OPTIONS, jobId: digestJobId(7, event.eventId) },
    });
  });

  it('puts several events in one job, with BullMQ choosing its id', () => {
    const events = queued(3);
    const job = digestJob(events);
    expect(job.name).toBe(DigestJobName.Events);
    expect(job.data).toEqual({ events });
    expect(job.opts.jobId).toBeUndefined();
  });

  it('splits events into jobs of at most MAX_EVENTS_PER_JOB, in order, none lost', () => {
    for (const count of [1, 2, MAX_EVENTS_PER_JOB, MAX_EVENTS_PER_JOB + 1, 3 * MAX_EVENTS_PER_JOB + 4]) {
      const events = queued(count);
      const jobs = digestJobs(events);
      expect(jobs).toHaveLength(Math.ceil(count / MAX_EVENTS_PER_JOB));
      expect(jobs.flatMap((job) => eventsOfJob(job.data))).toEqual(events);
      for (const job of jobs) expect(eventsOfJob(job.data).length).toBeLessThanOrEqual(MAX_EVENTS_PER_JOB);
    }
  });

  it('reads the events of both kinds of job', () => {
    const events = queued(2);
    expect(eventsOfJob(events[0])).toEqual([events[0]]);
    expect(eventsOfJob({ events })).toEqual(events);
  });

  it('describes a job by its events and projects, never by their payloads', () => {
    const [one] = queued(1);
    expect(describeDigestJob({ data: one })).toBe(`event ${one.eventId} of project 7`);
    const mixed = [...queued(2, 7), ...queued(1, 9)];
    const text = describeDigestJob({ data: { events: mixed } });
    expect(text).toBe('3 events of project(s) 7, 9');
    expect(text).not.toContain('message');
  });
});
