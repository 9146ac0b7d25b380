// node-redlock 4.2.0, unmodified, as one client of a lockstep scenario: its
// Redlock over one ioredis client per instance (LOCKSTEP_REDIS_URLS).
//
// Each round: lock (the lock script on every instance, a majority and time
// left within the TTL less the drift, else unlock and retry RETRY_COUNT
// times after retry_delay), hold (enter until the lock's expiration,
// optionally write the resource), leave, unlock. The lock settings come
// from the scenario: key, ttl (PX, in ticks of one millisecond),
// retry_delay, rounds. START_DELAY_MS: the client first sleeps that long
// (a client that comes later).
'use strict';

const Redis = require('ioredis');
const Redlock = require('redlock');
const {Lockstep, redisUrls, settings} = require('./lockstep_client');

async function main() {
  const s = settings();
  const servers = redisUrls().map((url) => new Redis(url));
  const say = new Lockstep(servers[0]);
  const redlock = new Redlock(servers, {
    retryCount: Number(process.env.RETRY_COUNT || '0'),
    retryDelay: s.retry_delay,
    retryJitter: Number(process.env.RETRY_JITTER_MS || '0'),
  });
  const delay = Number(process.env.START_DELAY_MS || '0');
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  for (let round = 0; round < s.rounds; ++round) {
    let lock;
    try {
      lock = await redlock.lock(s.key, s.ttl);
    } catch (e) {
      await say.because('gave up: ' + e.message);
      continue;
    }
    // Redlock's own validity: the start of the attempt + ttl - drift.
    await say.enter(lock.expiration);
    if (s.write_resource) await say.write(0);
    await say.leave();
    try {
      await lock.unlock();
    } catch (e) {
      await say.because('unlock failed: ' + e.message);
    }
    await say.released();
  }
  for (const r of servers) r.disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
