package io.gpupool.scheduler.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static io.gpupool.scheduler.core.UnorderedIteration.calls;
import static io.gpupool.scheduler.core.UnorderedIteration.constructs;
import static io.gpupool.scheduler.core.UnorderedIteration.noWalkWhereItMakes;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.math.BigDecimal;
import java.text.NumberFormat;
import java.util.Formatter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The rules that keep bytes the same across JVMs, for every module whose numbers and orders reach
 * decisions, node commands, snapshots or the job book (scheduler-core, scheduler-journal). Each
 * names what differs: java.lang.Math's transcendental functions (may differ in the last bit between
 * JVMs and CPUs; StrictMath may not), the JDK's double-to-text (Double.toString changed in JDK 19,
 * Formatter's %e/%f in JDK 21; use {@link DecimalText}), and Map.of/Set.of iteration (its order is
 * salted per JVM run).
 */
public final class DeterminismRules {
    /** Math's functions that are allowed to differ; sqrt, abs, floor, ceil, rint, min, max and the exact arithmetic are exact. */
    private static final Set<String> TRANSCENDENTAL = Set.of("sin", "cos", "tan", "asin", "acos", "atan", "atan2",
            "sinh", "cosh", "tanh", "exp", "expm1", "log", "log10", "log1p", "pow", "cbrt", "hypot");
    private static final List<String> FLOATING = List.of("double", "float");
    private static final List<String> STRING_BUILDERS = List.of(StringBuilder.class.getName(), StringBuffer.class.getName());

    private DeterminismRules() {
    }

    public static ArchRule noTranscendentalMath() {
        return noClasses().should().callMethodWhere(named("Math." + new TreeSet<>(TRANSCENDENTAL),
                c -> c.getTargetOwner().isEquivalentTo(Math.class) && TRANSCENDENTAL.contains(c.getName())));
    }

    /**
     * No double or float becomes text through the JDK: Double/Float.toString, String.valueOf and
     * StringBuilder.append/insert of one, BigDecimal.valueOf(double) (it goes through Double.toString),
     * and no String.format, formatted, Formatter or NumberFormat at all (which of their arguments are
     * floating is not visible in bytecode, and no whole number needs them).
     */
    public static ArchRule noFloatingPointText() {
        return noClasses().should().callMethodWhere(named("Double/Float.toString, String.valueOf(double/float)",
                        c -> (c.getTargetOwner().isEquivalentTo(Double.class) || c.getTargetOwner().isEquivalentTo(Float.class))
                                && c.getName().equals("toString")
                                || c.getTargetOwner().isEquivalentTo(String.class) && c.getName().equals("valueOf")
                                && takesFloating(c)))
                .orShould().callMethodWhere(named("StringBuilder/StringBuffer append/insert(double/float)",
                        c -> STRING_BUILDERS.contains(c.getTargetOwner().getName())
                                && (c.getName().equals("append") || c.getName().equals("insert")) && takesFloating(c)))
                .orShould().callMethodWhere(named("BigDecimal.valueOf(double)",
                        c -> c.getTargetOwner().isEquivalentTo(BigDecimal.class) && c.getName().equals("valueOf")
                                && takesFloating(c)))
                .orShould().callMethodWhere(named("String.format/formatted",
                        c -> c.getTargetOwner().isEquivalentTo(String.class)
                                && (c.getName().equals("format") || c.getName().equals("formatted"))))
                .orShould().dependOnClassesThat().areAssignableTo(Formatter.class)
                .orShould().dependOnClassesThat().areAssignableTo(NumberFormat.class)
                .orShould(concatenateFloatingPoint());
    }

    /**
     * Map.of/Set.of and their copies iterate in an order salted per JVM run, the collectors give hash
     * maps and sets: a class that makes one walks only collections declared by an ordered type.
     */
    public static ArchRule noWalkOfImmutableMapsOrSets() {
        final DescribedPredicate<JavaAccess<?>> unordered =
                calls(Map.class, "of", "ofEntries", "copyOf")
                        .or(calls(Set.class, "of", "copyOf"))
                        .or(calls(Collectors.class, "toSet", "toUnmodifiableSet", "toMap", "toUnmodifiableMap",
                                "groupingBy", "partitioningBy"));
        return classes().should(noWalkWhereItMakes(unordered));
    }

    /**
     * A HashMap or HashSet iterates in its keys' hash order, which for keys without a fixed hash (an
     * enum, any object without hashCode) differs per JVM run: a class that makes one walks only
     * collections declared by an ordered type.
     */
    public static ArchRule noWalkOfHashCollections() {
        return classes().should(noWalkWhereItMakes(constructs(HashMap.class, HashSet.class)));
    }

    /** {@code "x" + d} is an invokedynamic, which ArchUnit's calls do not show: read it off the constant pool. */
    private static ArchCondition<JavaClass> concatenateFloatingPoint() {
        return new ArchCondition<>("concatenate a double or float into a string") {
            @Override
            public void check(final JavaClass c, final ConditionEvents events) {
                c.getSource().ifPresent(source -> ConcatArguments.of(source.getUri()).stream()
                        .filter(ConcatArguments::takesFloatingPoint)
                        .forEach(args -> events.add(SimpleConditionEvent.satisfied(c, c.getName()
                                + " concatenates (" + args + ") into a string; use DecimalText"))));
            }
        };
    }

    private static boolean takesFloating(final JavaCall<?> c) {
        return c.getTarget().getRawParameterTypes().stream().anyMatch(t -> FLOATING.contains(t.getName()));
    }

    private static DescribedPredicate<JavaCall<?>> named(final String description, final Predicate<JavaCall<?>> p) {
        return DescribedPredicate.describe(description, p::test);
    }
}
