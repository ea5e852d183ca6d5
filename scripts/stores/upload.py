"""Upload directories to an S3 bucket (moto) or an Azure Blob container
(Azurite) for scripts/test_stores.sh: `upload.py s3 ENDPOINT BUCKET PREFIX
DIR...` or `upload.py az CONNECTION_STRING CONTAINER PREFIX DIR...`. Each
DIR is uploaded under PREFIX/<basename of DIR>/, keys as the files' relative
paths. `delete` instead of a DIR list: `upload.py s3 ENDPOINT BUCKET delete KEY`.
"""
import os
import sys


def files(root):
    base = os.path.basename(os.path.normpath(root))
    for d, _, names in os.walk(root):
        for n in sorted(names):
            full = os.path.join(d, n)
            yield full, base + "/" + os.path.relpath(full, root).replace(os.sep, "/")


def main():
    kind, where, bucket, prefix, *dirs = sys.argv[1:]
    if kind == "s3":
        import boto3

        s3 = boto3.client("s3", endpoint_url=where, region_name="us-east-1")
        if prefix == "delete":
            for key in dirs:
                s3.delete_object(Bucket=bucket, Key=key)
            return
        try:
            s3.create_bucket(Bucket=bucket)
        except s3.exceptions.BucketAlreadyOwnedByYou:
            pass
        for full, rel in (f for d in dirs for f in files(d)):
            s3.upload_file(full, bucket, f"{prefix}/{rel}" if prefix else rel)
    elif kind == "az":
        from azure.storage.blob import BlobServiceClient

        svc = BlobServiceClient.from_connection_string(where)
        c = svc.get_container_client(bucket)
        if prefix == "delete":
            for key in dirs:
                c.delete_blob(key)
            return
        if not c.exists():
            c.create_container()
        for full, rel in (f for d in dirs for f in files(d)):
            with open(full, "rb") as fh:
                c.upload_blob(f"{prefix}/{rel}" if prefix else rel, fh, overwrite=True)
    else:
        sys.exit(f"unknown store {kind}")


if __name__ == "__main__":
    main()
