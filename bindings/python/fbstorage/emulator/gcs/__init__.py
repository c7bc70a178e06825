"""The GCS JSON API (`/storage/v1`, `/upload/storage/v1`, `/download/storage/v1`) that
google-cloud-storage and the Firebase Admin SDKs speak, on the same store as the v0 API."""

from .routes import add_gcs_routes

__all__ = ["add_gcs_routes"]
