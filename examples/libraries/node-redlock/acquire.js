// A node-redlock holder as its README writes one, the library unmodified:
// one client of a lockstep scenario over one ioredis client per instance
// (LOCKSTEP_REDIS_URLS). The version is the argument: 4.2.0, 5.0.0-beta.2
// or sesamecare-1.4.0 (the fork @sesamecare-oss/redlock).
//
// The client acquires (the library's own retries: RETRY_COUNT of them,
// retry_delay apart, no jitter; out of them it gives up, which the property
// some_contender_enters judges), enters believing the lock valid until the
// Lock's `expiration` (the library's own word for its validity), leaves
// and releases. START_DELAY_MS: the client first sleeps that long.
'use strict';

const path = require('path');
const Redis = require('ioredis');
const {Lockstep, redisUrls, settings} =
    require(path.join(__dirname, '../../real-clients/lockstep_client'));

// Each version's lock and release under one name.
const versions = {
  '4.2.0': () => {
    const Redlock = require('redlock-4.2.0');
    return {
      make: (servers, options) => new Redlock(servers, options),
      acquire: (redlock, key, ttl) => redlock.lock(key, ttl),
      release: (lock) => lock.unlock(),
    };
  },
  '5.0.0-beta.2': () => {
    const Redlock = require('redlock-5.0.0-beta.2').default;
    return {
      make: (servers, options) => new Redlock(servers, options),
      acquire: (redlock, key, ttl) => redlock.acquire([key], ttl),
      release: (lock) => lock.release(),
    };
  },
  'sesamecare-1.4.0': () => {
    const {Redlock} = require('sesamecare-redlock-1.4.0');
    return {
      make: (servers, options) => new Redlock(servers, options),
      acquire: (redlock, key, ttl) => redlock.acquire([key], ttl),
      release: (lock) => lock.release(),
    };
  },
};

async function main() {
  const version = versions[process.argv[2]];
  if (!version) throw new Error('no such version: ' + process.argv[2]);
  const library = version();
  const s = settings();
  const servers = redisUrls().map((url) => new Redis(url));
  const say = new Lockstep(servers[0]);
  const redlock = library.make(servers, {
    retryCount: Number(process.env.RETRY_COUNT || '0'),
    retryDelay: s.retry_delay,
    retryJitter: 0,
  });
  const delay = Number(process.env.START_DELAY_MS || '0');
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  let lock;
  try {
    lock = await library.acquire(redlock, s.key, s.ttl);
  } catch (e) {
    await say.because('gave up: ' + e.message);
    await say.giveUp();
  }
  if (lock) {
    await say.enter(lock.expiration);
    await say.leave();
    try {
      await library.release(lock);
    } catch (e) {
      await say.because('release failed: ' + e.message);
    }
    await say.released();
  }
  for (const r of servers) r.disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
