package io.gpupool.scheduler.journal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A pool's engine configuration changed at a journal position (an EngineSettings entry whose settings
 * differ from the engine's): what the placer, restore, audit and replay all apply at the same place.
 * Reported as such, never as a divergence.
 *
 * @param before the engine's settings before the entry ({@code EngineConfig.toSettings})
 * @param after  its settings from the entry on
 */
public record ConfigChange(String pool, int partition, long offset, SortedMap<String, String> before,
                           SortedMap<String, String> after) {

    public ConfigChange {
        before = Collections.unmodifiableSortedMap(new TreeMap<>(before));
        after = Collections.unmodifiableSortedMap(new TreeMap<>(after));
    }

    /** Each key that differs, in key order: {@code key: old -> new} ("(unset)" for a key only one side has). */
    public List<String> changes() {
        final TreeSet<String> keys = new TreeSet<>(before.keySet());
        keys.addAll(after.keySet());
        final List<String> out = new ArrayList<>();
        for (final String k : keys) {
            if (!Objects.equals(before.get(k), after.get(k))) {
                out.add(k + ": " + before.getOrDefault(k, "(unset)") + " -> " + after.getOrDefault(k, "(unset)"));
            }
        }
        return out;
    }

    /** One line for reports and logs. */
    public String describe() {
        return "pool " + pool + ": engine configuration changed at journal " + partition + "@" + offset + ": "
                + String.join(", ", changes());
    }
}
