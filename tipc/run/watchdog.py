"""placeholder: replaced by the containment branch"""
def kill_marked(marker: str, grace: float = 3.0) -> int:
    return 0
class Watchdog:
    def close(self) -> None:
        pass
def start_watchdog(marker: str) -> Watchdog:
    return Watchdog()
