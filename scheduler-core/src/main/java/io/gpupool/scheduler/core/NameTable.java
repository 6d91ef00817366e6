package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Names (GPU models, leaves, spines) to dense indices in order of first appearance. */
final class NameTable {
    private final List<String> names = new ArrayList<>();
    private final Map<String, Integer> index = new HashMap<>();

    int intern(final String name) {
        final Integer i = index.get(name);
        if (i != null) {
            return i;
        }
        names.add(name);
        index.put(name, names.size() - 1);
        return names.size() - 1;
    }

    /** The index, or -1 when the name was never seen. */
    int find(final String name) {
        final Integer i = index.get(name);
        return i == null ? -1 : i;
    }

    String name(final int i) {
        return names.get(i);
    }

    int size() {
        return names.size();
    }

    List<String> names() {
        return List.copyOf(names);
    }
}
