package io.gpupool.cli.up;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Starts services in order and stops them in reverse. If one fails to start, those already
 * started are stopped before the failure is passed on, so a failed {@code up} leaves nothing behind.
 */
public final class ServiceGroup implements AutoCloseable {

    private final List<UpService> services;
    private final Deque<Started> started = new ArrayDeque<>();

    private record Started(String name, AutoCloseable stopper) {
    }

    public ServiceGroup(final List<UpService> services) {
        this.services = List.copyOf(services);
    }

    public void start(final UpContext context) throws Exception {
        for (final UpService service : services) {
            try {
                started.push(new Started(service.name(), service.start(context)));
            } catch (Exception e) {
                final List<String> problems = stopAll();
                final Exception failure = new Exception(service.name() + " failed to start: " + e.getMessage(), e);
                problems.forEach(p -> failure.addSuppressed(new IllegalStateException(p)));
                throw failure;
            }
        }
    }

    /** Names of the services that are running, in start order. */
    public List<String> running() {
        final List<String> names = new ArrayList<>();
        started.descendingIterator().forEachRemaining(s -> names.add(s.name()));
        return names;
    }

    /** Stops every started service in reverse order; one that fails to stop does not keep the others running. */
    @Override
    public void close() {
        final List<String> problems = stopAll();
        if (!problems.isEmpty()) {
            throw new IllegalStateException("some services did not stop cleanly: " + String.join("; ", problems));
        }
    }

    private List<String> stopAll() {
        final List<String> problems = new ArrayList<>();
        while (!started.isEmpty()) {
            final Started s = started.pop();
            try {
                s.stopper().close();
            } catch (Exception e) {
                problems.add(s.name() + ": " + e.getMessage());
            }
        }
        return problems;
    }
}
