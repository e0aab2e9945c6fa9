package dev.tickwheel.server.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InstanceStatusTest {

    /** The state machine of issues 4 and 10, written out independently of the enum, as the oracle. */
    private static final Set<String> LEGAL = Set.of(
            "WAITING->DISPATCHING", "WAITING->CANCELLED",
            "DISPATCHING->SUCCEEDED", "DISPATCHING->FAILED", "DISPATCHING->WAITING", "DISPATCHING->INTERRUPTED");

    @Test
    void canMoveTo_everyPair_matchesTheIssueStateMachine() {
        for (InstanceStatus from : InstanceStatus.values()) {
            for (InstanceStatus to : InstanceStatus.values()) {
                assertEquals(LEGAL.contains(from + "->" + to), from.canMoveTo(to), from + " -> " + to);
            }
        }
    }

    @Test
    void checkCanMoveTo_illegalPair_throwsNamingBothStates() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> InstanceStatus.SUCCEEDED.checkCanMoveTo(InstanceStatus.WAITING));

        assertTrue(e.getMessage().contains("SUCCEEDED") && e.getMessage().contains("WAITING"), e.getMessage());
    }

    @Test
    void checkCanMoveTo_legalPair_returns() {
        InstanceStatus.DISPATCHING.checkCanMoveTo(InstanceStatus.WAITING);
    }

    @Test
    void canMoveTo_fromAFinishedState_nothingIsLegal() {
        Set<InstanceStatus> noWayOut = EnumSet.noneOf(InstanceStatus.class);
        for (InstanceStatus from : InstanceStatus.values()) {
            if (Set.of(InstanceStatus.values()).stream().noneMatch(from::canMoveTo)) {
                noWayOut.add(from);
            }
        }

        assertEquals(EnumSet.of(InstanceStatus.SUCCEEDED, InstanceStatus.FAILED, InstanceStatus.CANCELLED,
                InstanceStatus.INTERRUPTED), noWayOut);
    }

    @Test
    void instanceTransition_everyConstant_isALegalMoveAndAllLegalMovesAreNamed() {
        Set<String> named = new java.util.HashSet<>();
        for (InstanceTransition t : InstanceTransition.values()) {
            assertTrue(t.from().canMoveTo(t.to()), t.name());
            named.add(t.from() + "->" + t.to());
        }
        assertEquals(LEGAL, named);
    }

    @Test
    void cancelOutcomeRefusedIn_eachNonWaitingStatus_classifies() {
        assertEquals(CancelOutcome.ALREADY_DISPATCHED, CancelOutcome.refusedIn(InstanceStatus.DISPATCHING));
        assertEquals(CancelOutcome.ALREADY_FINISHED, CancelOutcome.refusedIn(InstanceStatus.SUCCEEDED));
        assertEquals(CancelOutcome.ALREADY_FINISHED, CancelOutcome.refusedIn(InstanceStatus.FAILED));
        assertEquals(CancelOutcome.ALREADY_FINISHED, CancelOutcome.refusedIn(InstanceStatus.CANCELLED));
        assertEquals(CancelOutcome.ALREADY_FINISHED, CancelOutcome.refusedIn(InstanceStatus.INTERRUPTED));
        assertThrows(IllegalArgumentException.class, () -> CancelOutcome.refusedIn(InstanceStatus.WAITING));
    }
}
