"""Human review in Label Studio: the server, the labeling config, push, pull, majority vote and agreement."""
