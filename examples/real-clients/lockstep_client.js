// What a Node client tells lockstep about its critical section.
//
// lockstep runs the client as a process and serves it as Redis would; these
// calls are ECHO commands lockstep intercepts and never sends on
// (README, "Real lock libraries"). Outside lockstep they are harmless ECHOs.
'use strict';

/** The scenario's lock settings for this client (key, ttl, rounds, ...). */
function settings() {
  return JSON.parse(process.env.LOCKSTEP_SETTINGS || '{}');
}

/** The URLs of the scenario's instances, in order. */
function redisUrls() {
  return (process.env.LOCKSTEP_REDIS_URLS || 'redis://127.0.0.1:6379/0').split(' ');
}

/** This client's clock, in ticks (milliseconds). */
function nowMs() {
  return Date.now();
}

/** The calls, sent on a connection of the client's own (an ioredis client). */
class Lockstep {
  constructor(redis) {
    this.redis = redis;
  }

  say(text) {
    return this.redis.echo('lockstep:' + text);
  }

  /** Enters the critical section, believing the lock valid until then (its clock). */
  enter(validUntilMs) {
    return this.say('enter ' + Math.floor(validUntilMs));
  }

  /** The lease was extended: the lock is believed valid until then. */
  renew(validUntilMs) {
    return this.say('renew ' + Math.floor(validUntilMs));
  }

  /**
   * Leaves the critical section (a step of its own). With `release` (a
   * command, as an array of strings), sends it in the same step, unless
   * `unlessExpired` is given and is before the clock then.
   */
  leave(release, unlessExpired) {
    if (release === undefined) return this.say('leave');
    const arg = {command: release};
    if (unlessExpired !== undefined) arg.unless_expired = unlessExpired;
    return this.say('leave ' + JSON.stringify(arg));
  }

  /** No longer believes it holds the lock. */
  released() {
    return this.say('released');
  }

  /** Writes the protected resource with a fencing token; true iff accepted. */
  async write(token = 0) {
    return (await this.say('write ' + token)) === '1';
  }

  /**
   * A random integer from least to most: a step of lockstep's, each value
   * tried, or weighed as likely with --probabilistic. Outside lockstep,
   * Math.random's.
   */
  async draw(least, most) {
    const reply = await this.say('draw ' + least + ' ' + most);
    return reply.startsWith('lockstep:')
      ? least + Math.floor(Math.random() * (most - least + 1))
      : Number(reply);
  }

  /** This attempt ended without the lock (some_contender_enters). */
  giveUp() {
    return this.say('give_up');
  }

  /** Why the code does what it does next, shown under the step. */
  because(text) {
    return this.say('because ' + text);
  }

  /**
   * From here on, what the client does depends only on `label`, the
   * integers `live`, the times `times` and what it observes next (a
   * promise, as Client::ForgetHistory: the search merges the states that
   * agree on them).
   */
  forgetHistory(label, live = [], times = []) {
    return this.say('forget_history ' + JSON.stringify({label, live, times}));
  }

  /**
   * An argument that stands for this client's clock plus `offset` when the
   * command runs (its age is the scheduler's, as max_arg_delay allows).
   */
  async clockPlus(offset) {
    const reply = await this.say('clock_plus ' + offset);
    if (reply.startsWith('lockstep:clock+')) return reply;
    this.stamp = nowMs() + offset;  // outside lockstep: the clock now
    return String(this.stamp);
  }

  /** The time the clockPlus argument of the last command stood for. */
  async sentTimestamp() {
    const reply = await this.say('sent_timestamp');
    return reply === 'lockstep:sent_timestamp' ? this.stamp : Number(reply);
  }
}

module.exports = {settings, redisUrls, nowMs, Lockstep};
