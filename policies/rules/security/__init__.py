"""Security rules: encryption, network exposure, identity."""
