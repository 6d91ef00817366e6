package io.gpupool.collector.kernel;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads Xid messages incrementally and files them under the GPU they name, by PCI bus id. The
 * collector drains it once per interval, so each sample carries the Xids seen since the previous.
 * Messages for a bus id that is no known GPU are kept under that bus id (and logged): a GPU that
 * fell off the bus may be missing from nvidia-smi exactly when its Xid matters.
 */
public final class XidMonitor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(XidMonitor.class);

    private final LineSource source;
    private final Map<String, String> uuidByBusId = new LinkedHashMap<>();
    private final Map<String, List<XidEvent>> pending = new LinkedHashMap<>();
    private long seen;

    public XidMonitor(final LineSource source) {
        this.source = source;
    }

    /** Teaches the monitor which GPU sits at which bus id (any spelling of the address). */
    public void knowGpu(final String pciBusId, final String uuid) {
        final String canonical = PciBusId.normaliseOrNull(pciBusId);
        if (canonical != null) {
            uuidByBusId.put(canonical, uuid);
        }
    }

    /** Reads what arrived and files it; returns the number of new Xid events. */
    public int poll() {
        int found = 0;
        for (final String line : source.poll()) {
            final Optional<XidEvent> event = XidLineParser.parse(line);
            if (event.isPresent()) {
                final XidEvent e = event.get();
                final String key = uuidByBusId.getOrDefault(e.pciBusId(), e.pciBusId());
                if (key.equals(e.pciBusId())) {
                    LOG.warn("Xid {} for PCI {} which is no known GPU", e.xid(), e.pciBusId());
                }
                pending.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
                found++;
                seen++;
            }
        }
        return found;
    }

    /** Xid events per GPU uuid (or bus id when unknown) since the last drain, then forgets them. */
    public Map<String, List<XidEvent>> drain() {
        poll();
        final Map<String, List<XidEvent>> out = new LinkedHashMap<>(pending);
        pending.clear();
        return out;
    }

    public long seenTotal() {
        return seen;
    }

    @Override
    public void close() {
        source.close();
    }
}
