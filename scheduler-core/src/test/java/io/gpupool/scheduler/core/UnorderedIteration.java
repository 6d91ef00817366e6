package io.gpupool.scheduler.core;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.stream.Stream;

/**
 * An ArchUnit condition for the engine's determinism: a class that makes an unordered collection
 * (a source: {@code new HashMap}, {@code Set.of}, ...) and iterates a collection typed only as
 * {@code Map} or {@code Set} (or as the hash type itself) may iterate the unordered one.
 * Bytecode does not say which object a call is made on, so this is judged per class: a class that
 * does both (or walks while a class it is nested in makes one) is a violation, unless it declares its ordered collections by an ordered type
 * (SortedMap, NavigableSet, LinkedHashMap, List, ...), whose calls this condition does not count.
 * A walk of a view set on the line where an ordered map gave it ({@code for (e : sorted.entrySet())})
 * is that map's walk, not a violation.
 */
final class UnorderedIteration {

    /** Calls that walk a collection: their order is the collection's. */
    private static final Set<String> WALKS = Set.of("values", "keySet", "entrySet", "forEach", "iterator", "stream",
            "parallelStream", "spliterator", "toArray");
    /** Types that promise no order: a walk through a reference of one of these types may be unordered. */
    private static final List<String> UNORDERED_TYPES = List.of(Map.class.getName(), Set.class.getName(),
            HashMap.class.getName(), HashSet.class.getName());
    /** Maps whose key, value and entry views iterate in a defined order. */
    private static final List<Class<?>> ORDERED_MAPS = List.of(SortedMap.class, LinkedHashMap.class);
    private static final Set<String> VIEWS = Set.of("keySet", "values", "entrySet", "navigableKeySet", "descendingKeySet");

    private UnorderedIteration() {
    }

    /** {@code new} of these classes makes an unordered collection. */
    static DescribedPredicate<JavaAccess<?>> constructs(final Class<?>... types) {
        final List<String> names = Stream.of(types).map(Class::getName).toList();
        return DescribedPredicate.describe("constructs " + names, a -> a.getName().equals("<init>")
                && names.contains(a.getTargetOwner().getName()));
    }

    /** A call of one of these static methods of {@code owner} returns an unordered collection. */
    static DescribedPredicate<JavaAccess<?>> calls(final Class<?> owner, final String... methods) {
        final List<String> names = List.of(methods);
        return DescribedPredicate.describe("calls " + owner.getSimpleName() + "." + names,
                a -> a.getTargetOwner().getName().equals(owner.getName()) && names.contains(a.getName()));
    }

    /** No class both makes an unordered collection ({@code source}) and walks a Map/Set-typed one. */
    static ArchCondition<JavaClass> noWalkWhereItMakes(final DescribedPredicate<JavaAccess<?>> source) {
        return new ArchCondition<>("not walk a Map or Set where it " + source.getDescription()) {
            @Override
            public void check(final JavaClass c, final ConditionEvents events) {
                // a nested or anonymous class walks what its enclosing class made (JobBook.inMemory's map)
                final List<JavaAccess<?>> sources = new ArrayList<>();
                for (Optional<JavaClass> k = Optional.of(c); k.isPresent(); k = k.get().getEnclosingClass()) {
                    k.get().getAccessesFromSelf().stream().filter(source::test).forEach(sources::add);
                }
                if (sources.isEmpty()) {
                    return;
                }
                final Set<Integer> orderedViewLines = new HashSet<>();
                c.getMethodCallsFromSelf().stream().filter(call -> VIEWS.contains(call.getName())
                                && ORDERED_MAPS.stream().anyMatch(call.getTargetOwner()::isAssignableTo))
                        .forEach(call -> orderedViewLines.add(call.getLineNumber()));
                c.getMethodCallsFromSelf().stream()
                        .filter(call -> WALKS.contains(call.getName())
                                && UNORDERED_TYPES.contains(call.getTargetOwner().getName()))
                        .filter(call -> !(call.getTargetOwner().isEquivalentTo(Set.class)
                                && orderedViewLines.contains(call.getLineNumber())))
                        .forEach(walk -> events.add(SimpleConditionEvent.violated(walk, walk.getDescription()
                                + ", and " + sources.get(0).getDescription())));
            }
        };
    }
}
