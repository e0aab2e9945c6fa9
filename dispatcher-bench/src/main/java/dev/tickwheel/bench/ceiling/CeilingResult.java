package dev.tickwheel.bench.ceiling;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * What one ceiling run measured, instances per second each. A child JVM prints it as one {@code RESULT} line
 * ({@link #toMap()}); the parent reads it back ({@link #of}).
 *
 * <p>Immutable.
 *
 * @param instances      instances per phase
 * @param create         the create stage alone, one thread: loader pages, one transaction each
 * @param claim          the claim stage alone, one thread
 * @param settle         the success stage alone, one thread
 * @param sequential     the three stages one after the other: instances ÷ (create + claim + settle time)
 * @param dispatch       claim and success pipelined (one thread each) over instances created beforehand: the stages
 *                       the engine's dispatch/s covers
 * @param pipelined      create, claim and success pipelined, one thread each
 * @param pipelined2     the same with two claim threads
 */
public record CeilingResult(int instances, double create, double claim, double settle, double sequential,
                            double dispatch, double pipelined, double pipelined2) {

    /** The measures in report order, with their names. */
    public static final Map<String, ToDoubleFunction<CeilingResult>> MEASURES = measures();

    /** The best pipelined shape: the ceiling of create + claim + success that the engine is compared with. */
    public double best() {
        return Math.max(pipelined, pipelined2);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("instances", instances);
        MEASURES.forEach((name, measure) -> map.put(name, Math.round(measure.applyAsDouble(this))));
        return map;
    }

    public static CeilingResult of(Map<String, String> values) {
        return new CeilingResult(Integer.parseInt(values.get("instances")), number(values, "create"),
                number(values, "claim"), number(values, "settle"), number(values, "sequential"),
                number(values, "dispatch"), number(values, "pipelined"), number(values, "pipelined2"));
    }

    private static double number(Map<String, String> values, String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("no " + key + " in " + values);
        }
        return Double.parseDouble(value);
    }

    private static Map<String, ToDoubleFunction<CeilingResult>> measures() {
        Map<String, ToDoubleFunction<CeilingResult>> m = new LinkedHashMap<>();
        m.put("create", CeilingResult::create);
        m.put("claim", CeilingResult::claim);
        m.put("settle", CeilingResult::settle);
        m.put("sequential", CeilingResult::sequential);
        m.put("dispatch", CeilingResult::dispatch);
        m.put("pipelined", CeilingResult::pipelined);
        m.put("pipelined2", CeilingResult::pipelined2);
        m.put("best", CeilingResult::best);
        return Collections.unmodifiableMap(m);
    }
}
