package io.gpupool.scheduler.stream;

import io.gpupool.avro.LinkHealth;
import io.gpupool.avro.LinkSample;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.LinkStateChange;
import io.gpupool.avro.PortPhysState;
import io.gpupool.avro.PortState;
import java.util.ArrayList;
import java.util.List;

/**
 * Reduces one LinkSamples record of a known node to the port states that changed: DOWN (logical
 * or physical state), FLAPPING (link_downed rose often within a window), DEGRADED (symbol and
 * receive errors rising), UP. Error counters are cumulative, so it diffs them; a counter that went
 * backwards was reset and only re-baselines. Also records the node's uplink utilisation, which the
 * caller aggregates per leaf into congestion.
 */
final class LinkTelemetryReducer {
    private final TelemetryRules rules;

    LinkTelemetryReducer(final TelemetryRules rules) {
        this.rules = rules;
    }

    List<LinkStateChange> reduce(final NodeFacts node, final LinkSamples samples, final long nowMs)
            throws InvalidTelemetryException {
        validate(samples);
        final List<LinkStateChange> facts = new ArrayList<>();
        double uplink = -1;
        for (final LinkSample s : samples.getPorts()) {
            final String key = s.getHca() + ":" + s.getPort();
            NodeFacts.PortFacts p = node.ports.get(key);
            if (p == null) {
                p = new NodeFacts.PortFacts();
                node.ports.put(key, p);
                node.dirty = true;
            }
            final String evidence;
            final long downed = nz(s.getLinkDowned());
            if (s.getLinkDowned() != null && p.linkDowned >= 0 && downed > p.linkDowned) {
                for (long i = p.linkDowned; i < downed && p.downEvents.size() < 64; i++) {
                    p.downEvents.add(nowMs);
                    node.dirty = true;
                }
            }
            if (s.getLinkDowned() != null && p.linkDowned != downed) {
                p.linkDowned = downed;
                node.dirty = true;
            }
            node.dirty |= p.downEvents.removeIf(t -> nowMs - t > rules.flapWindowMs());
            final long errors = nz(s.getSymbolErrors()) + nz(s.getRcvErrors());
            if (p.errors >= 0 && errors - p.errors >= rules.errorsPerSampleDegraded()) {
                p.lastErrorRiseMs = nowMs;
                node.dirty = true;
            }
            final long errorRise = p.errors >= 0 ? errors - p.errors : 0;
            if (p.errors != errors) {
                p.errors = errors;
                node.dirty = true;
            }
            final LinkHealth health;
            final String reason;
            if (s.getState() == PortState.DOWN
                    || (s.getPhysState() != null && s.getPhysState() != PortPhysState.LINK_UP)) {
                health = LinkHealth.DOWN;
                reason = "LINK_DOWN";
                evidence = "state " + s.getState() + ", phys_state " + s.getPhysState();
            } else if (p.downEvents.size() >= rules.flapDownEvents()) {
                health = LinkHealth.FLAPPING;
                reason = "FLAPPING";
                evidence = "link_downed +" + p.downEvents.size() + " in " + rules.flapWindowMs() / 1000 + " s";
            } else if (p.lastErrorRiseMs >= 0 && nowMs - p.lastErrorRiseMs < rules.degradedQuietMs()) {
                health = LinkHealth.DEGRADED;
                reason = "ERRORS_RISING";
                evidence = "symbol+receive errors +" + errorRise + " in the last sample";
            } else {
                health = LinkHealth.UP;
                reason = null;
                evidence = "link up";
            }
            if (!health.name().equals(p.health)) {
                p.health = health.name();
                node.dirty = true;
                facts.add(LinkStateChange.newBuilder().setNodeId(samples.getNodeId()).setHca(s.getHca())
                        .setPort(s.getPort()).setHealth(health).setReasonCode(reason).setEvidence(evidence).build());
            }
            if (s.getTxBytesPerSec() != null && s.getRateGbps() != null && s.getRateGbps() > 0) {
                uplink = Math.max(uplink, Math.min(100, s.getTxBytesPerSec() * 8 / (s.getRateGbps() * 1e9) * 100));
            }
        }
        // whole percent: finer changes would rewrite the node's state on every sample for nothing
        if (node.uplinkPct != Math.round(uplink)) {
            node.uplinkPct = Math.round(uplink);
            node.dirty = true;
        }
        return facts;
    }

    private static void validate(final LinkSamples samples) throws InvalidTelemetryException {
        for (final LinkSample s : samples.getPorts()) {
            if (s.getPort() < 1) {
                throw new InvalidTelemetryException("port " + s.getPort() + " of " + s.getHca() + " is not 1-based");
            }
            for (final Long c : new Long[] {s.getSymbolErrors(), s.getLinkDowned(), s.getRcvErrors(), s.getXmitWait()}) {
                if (c != null && c < 0) {
                    throw new InvalidTelemetryException("negative counter on " + s.getHca() + ":" + s.getPort());
                }
            }
            for (final Double r : new Double[] {s.getTxBytesPerSec(), s.getRxBytesPerSec(), s.getRateGbps()}) {
                if (r != null && (r.isNaN() || r < 0)) {
                    throw new InvalidTelemetryException("negative or NaN rate on " + s.getHca() + ":" + s.getPort());
                }
            }
        }
    }

    private static long nz(final Long v) {
        return v == null ? 0 : v;
    }
}
