package io.gpupool.scheduler.core;

import java.util.Map;
import java.util.TreeMap;

/**
 * GPU-time each tenant used, decayed with a half-life, plus what it holds now. A tenant's fair-share
 * standing is its usage divided by its weight: the lower, the sooner its jobs go.
 */
final class FairShare {
    /** Per tenant: decayed GPU-ms, the stream time it was last brought up to date, milli-GPU held now. */
    static final class Account {
        double usageGpuMs;
        long asOfMs;
        long heldMilli;
    }

    private final long halfLifeMs;
    final TreeMap<String, Account> accounts = new TreeMap<>();

    FairShare(final long halfLifeMs) {
        this.halfLifeMs = halfLifeMs;
    }

    Account account(final String tenant) {
        return accounts.computeIfAbsent(tenant, t -> new Account());
    }

    /** Brings the account to {@code nowMs}: decays old usage and adds what it held meanwhile. */
    void advance(final Account a, final long nowMs) {
        final long dt = StreamTime.minus(nowMs, a.asOfMs);
        if (dt > 0) {
            a.usageGpuMs = a.usageGpuMs * StrictMath.pow(0.5, (double) dt / halfLifeMs) + a.heldMilli / 1000.0 * dt;
            a.asOfMs = nowMs;
        }
    }

    void acquire(final String tenant, final long milli, final long nowMs) {
        final Account a = account(tenant);
        advance(a, nowMs);
        a.heldMilli += milli;
    }

    void release(final String tenant, final long milli, final long nowMs) {
        final Account a = account(tenant);
        advance(a, nowMs);
        a.heldMilli -= milli;
    }

    /** Usage per weight as of now, without changing state (queries and ordering). */
    double standing(final String tenant, final double weight, final long nowMs) {
        final Account a = accounts.get(tenant);
        if (a == null) {
            return 0;
        }
        final long dt = Math.max(0, StreamTime.minus(nowMs, a.asOfMs));
        final double u = a.usageGpuMs * StrictMath.pow(0.5, (double) dt / halfLifeMs) + a.heldMilli / 1000.0 * dt;
        return u / weight;
    }

    long heldMilli(final String tenant) {
        final Account a = accounts.get(tenant);
        return a == null ? 0 : a.heldMilli;
    }

    Map<String, Account> view() {
        return accounts;
    }
}
