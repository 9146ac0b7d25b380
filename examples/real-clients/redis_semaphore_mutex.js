// redis-semaphore's Mutex, unmodified, as one client of a lockstep scenario,
// on ioredis (its peer dependency).
//
// Each round: acquire (SET NX PX, retried every retry_delay until
// ACQUIRE_TIMEOUT_MS), hold (enter, optionally write the resource), leave,
// release (its compare-and-delete script). The lock settings come from the
// scenario: key, ttl (PX, in ticks of one millisecond), retry_delay, rounds.
// The Mutex's own refresh timer is off (REFRESH_MS, default 0): a lease
// that is not renewed, as redis-py's Lock.
'use strict';

const Redis = require('ioredis');
const {Mutex} = require('redis-semaphore');
const {Lockstep, nowMs, redisUrls, settings} = require('./lockstep_client');

async function main() {
  const s = settings();
  const redis = new Redis(redisUrls()[0]);
  const say = new Lockstep(redis);
  const mutex = new Mutex(redis, s.key, {
    lockTimeout: s.ttl,
    retryInterval: s.retry_delay,
    acquireTimeout: Number(process.env.ACQUIRE_TIMEOUT_MS || '3'),
    refreshInterval: Number(process.env.REFRESH_MS || '0'),
  });
  for (let round = 0; round < s.rounds; ++round) {
    if (!(await mutex.tryAcquire())) {
      await say.because('gave up: acquireTimeout passed');
      continue;
    }
    // The SET that gave the lock ran at this clock: its PX runs out at +ttl.
    await say.enter(nowMs() + s.ttl);
    if (s.write_resource) await say.write(0);
    await say.leave();
    await mutex.release();
    await say.released();
  }
  redis.disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
